# Shared by scripts/run and scripts/test (sourced, not run): installs what is missing, builds.
# Idempotent and quiet when everything is already there.

HERD_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HERD_BUILD="${HERD_BUILD:-$HERD_ROOT/build}"

# Debian packages the build needs, and those the tests need on top (the browser for the viewer's
# tests). The Dockerfile's build stage installs the same build packages.
HERD_BUILD_PACKAGES=(g++ cmake ninja-build ccache libboost1.81-dev nlohmann-json3-dev)
HERD_VIEWER_PACKAGES=(libsdl2-dev)  # herd-view; the server's Docker image builds without it
HERD_TEST_PACKAGES=(libgtest-dev chromium)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Installs the Debian packages among "$@" that are not installed yet. With --minimal first,
# without their recommendations (docker-compose would otherwise bring a whole Docker engine that
# cannot run here anyway).
ensure_packages() {
  local options=() missing=() p
  if [ "${1:-}" = "--minimal" ]; then options=(--no-install-recommends); shift; fi
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "herd: installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${options[@]}" "${missing[@]}" >/dev/null
}

# Node.js and npm for the browser tests: the machine's own when present, Debian's otherwise.
ensure_node() {
  command -v node >/dev/null && command -v npm >/dev/null && return 0
  ensure_packages nodejs npm
}

# An npm test project's packages (tests/e2e, tests/docker), from its committed lock file;
# reinstalled when the lock file changes.
ensure_npm_packages() {
  local dir="$HERD_ROOT/$1"
  local stamp="$dir/node_modules/.herd-lock-stamp"
  if [ -f "$stamp" ] && cmp -s "$dir/package-lock.json" "$stamp"; then return 0; fi
  echo "herd: installing $1's npm packages (npm ci)"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  cp "$dir/package-lock.json" "$stamp"
}

# Configures (once) and builds everything in Release. Output goes to a log, shown on failure.
build_herd() {
  local log="$HERD_BUILD/build.log"
  mkdir -p "$HERD_BUILD"
  if [ ! -f "$HERD_BUILD/build.ninja" ]; then
    cmake -S "$HERD_ROOT" -B "$HERD_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$log" 2>&1 || {
      cat "$log"; echo "herd: cmake failed (log: $log)"; return 1; }
  fi
  # Captured first: under pipefail, grep -q closing the pipe early would fail ninja with SIGPIPE.
  local plan
  plan="$(ninja -C "$HERD_BUILD" -n 2>&1 || true)"
  [[ "$plan" == *"no work to do"* ]] || echo "herd: building (log: $log)"
  ninja -C "$HERD_BUILD" -j"$(nproc)" >>"$log" 2>&1 || {
    tail -n 60 "$log"; echo "herd: build failed (log: $log)"; return 1; }
}
