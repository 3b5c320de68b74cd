# Shared by scripts/run and scripts/test (sourced, not run): installs what is missing, builds.
# Idempotent and quiet when everything is already there.

HERD_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HERD_BUILD="${HERD_BUILD:-$HERD_ROOT/build}"
# ccache hashes paths under the checkout as relative ones, so a fresh clone elsewhere (CI) reuses
# what an earlier checkout compiled; sources whose flags carry the checkout's path still differ.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$HERD_ROOT}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
HERD_SANITIZE_BUILD="${HERD_SANITIZE_BUILD:-$HERD_ROOT/build-sanitize}"

# Debian packages the build needs, and those the tests need on top (the browser for the viewer's
# tests). The Dockerfile's build stage installs the same build packages.
HERD_BUILD_PACKAGES=(g++ cmake ninja-build ccache libboost1.81-dev nlohmann-json3-dev)
HERD_VIEWER_PACKAGES=(libsdl2-dev)  # herd-view; the server's Docker image builds without it
HERD_TEST_PACKAGES=(libgtest-dev chromium clang libclang-rt-14-dev)  # clang: the sanitizer tree

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

# Configures the build tree "$1" with the cmake arguments after it (again whenever they change)
# and builds everything in it. Output goes to a log in the tree, shown on failure.
build_tree() {
  local dir="$1"; shift
  local log="$dir/build.log" args="$dir/.herd-cmake-args"
  mkdir -p "$dir"
  if [ ! -f "$dir/build.ninja" ] || [ "$(cat "$args" 2>/dev/null)" != "$*" ]; then
    cmake -S "$HERD_ROOT" -B "$dir" -G Ninja "$@" >"$log" 2>&1 || {
      cat "$log"; echo "herd: cmake failed (log: $log)"; return 1; }
    printf '%s' "$*" >"$args"
  fi
  # Captured first: under pipefail, grep -q closing the pipe early would fail ninja with SIGPIPE.
  local plan
  plan="$(ninja -C "$dir" -n 2>&1 || true)"
  [[ "$plan" == *"no work to do"* ]] || echo "herd: building $dir (log: $log)"
  ninja -C "$dir" -j"$(nproc)" >>"$log" 2>&1 || {
    tail -n 60 "$log"; echo "herd: build failed (log: $log)"; return 1; }
}

# Everything in Release: what scripts/run serves and scripts/test tests first.
build_herd() {
  build_tree "$HERD_BUILD" -DCMAKE_BUILD_TYPE=Release
}

# The sanitizer tree (issue 9): clang at -O1 -g with assertions on, AddressSanitizer and
# UndefinedBehaviorSanitizer in every target and test, and the libFuzzer targets. Without the
# viewer and without the browser and Docker tests, which the Release tree runs.
build_herd_sanitize() {
  build_tree "$HERD_SANITIZE_BUILD" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g" \
    -DHERD_SANITIZE=address,undefined -DHERD_FUZZ=ON \
    -DHERD_BUILD_VIEWER=OFF -DHERD_E2E_TESTS=OFF -DHERD_DOCKER_CHECKS=OFF
}
