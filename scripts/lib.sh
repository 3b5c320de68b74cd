# Shared by scripts/run and scripts/test (sourced, not run): installs what is missing, builds.
# Idempotent and quiet when everything is already there.

HERD_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HERD_BUILD="${HERD_BUILD:-$HERD_ROOT/build}"
# ccache hashes paths under the checkout as relative ones, so a fresh clone elsewhere (CI) reuses
# what an earlier checkout compiled. -ffile-prefix-map names the checkout but maps it away (the
# object is the same from any checkout), so it is left out of the hash; sources whose other flags
# carry the checkout's path (the tests' data directories) still differ.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$HERD_ROOT}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
export CCACHE_IGNOREOPTIONS="${CCACHE_IGNOREOPTIONS:--ffile-prefix-map=*}"
HERD_SANITIZE_BUILD="${HERD_SANITIZE_BUILD:-$HERD_ROOT/build-sanitize}"

# Debian packages the build needs (one list, which the Dockerfile's build stage installs too), and
# those the tests need on top (the browser for the viewer's tests).
mapfile -t HERD_BUILD_PACKAGES < <(grep -v '^#' "$HERD_ROOT/scripts/packages-build.txt")
HERD_VIEWER_PACKAGES=(libsdl2-dev)  # herd-view; the server's Docker image builds without it
# clang: the sanitizer tree; python3-*: the Python client's tests (pip builds it offline; numpy and
# matplotlib for its trajectory reader and the fundamental diagram example).
HERD_TEST_PACKAGES=(libgtest-dev libbenchmark-dev chromium clang libclang-rt-14-dev python3-websockets python3-pytest python3-pip python3-numpy python3-matplotlib)

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
  # Waits for another apt (an unattended upgrade, a second checkout's script) instead of failing.
  as_root apt-get -o DPkg::Lock::Timeout=300 update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${options[@]}" "${missing[@]}" >/dev/null
}

# Node.js 20.19 or later and npm, for the browser tests and the viewer's checks (ESLint 10 and
# TypeScript 7 need it, and Node's test runner imports the viewer's ES modules): the machine's own
# when it is recent enough. Otherwise Debian's npm (Debian 12's Node is 18) installs the `node`
# package from the npm registry, pinned by scripts/node/package-lock.json, into .tools/node, and
# that Node goes first on PATH for everything after (CMake records it when it configures).
node_recent_enough() {
  command -v node >/dev/null &&
    node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' 2>/dev/null
}
ensure_node() {
  local tools="$HERD_ROOT/.tools/node"
  [ -x "$tools/node_modules/.bin/node" ] && export PATH="$tools/node_modules/.bin:$PATH"
  command -v npm >/dev/null || ensure_packages nodejs npm
  node_recent_enough && return 0
  if [ ! -x "$tools/node_modules/.bin/node" ] || ! cmp -s "$HERD_ROOT/scripts/node/package-lock.json" "$tools/package-lock.json"; then
    echo "herd: $(node --version 2>/dev/null || echo 'no Node') here; installing Node from the npm registry into .tools/node"
    mkdir -p "$tools"
    cp "$HERD_ROOT/scripts/node/package.json" "$HERD_ROOT/scripts/node/package-lock.json" "$tools/"
    (cd "$tools" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    export PATH="$tools/node_modules/.bin:$PATH"
  fi
  node_recent_enough || { echo "herd: Node 20.19 or later is needed, and none could be installed" >&2; return 1; }
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

# Configures the build tree "$1" from CMakePresets.json's preset "$2", with any cmake arguments
# after it (again whenever they change), and builds everything in it. Output goes to a log in the
# tree, shown on failure.
build_tree() {
  local dir="$1"; shift
  local log="$dir/build.log" args="$dir/.herd-cmake-args"
  mkdir -p "$dir"
  if [ ! -f "$dir/build.ninja" ] || [ "$(cat "$args" 2>/dev/null)" != "$*" ]; then
    (cd "$HERD_ROOT" && cmake --preset "$1" -B "$dir" "${@:2}") >"$log" 2>&1 || {
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

# Everything in Release, tests and benchmarks included: what scripts/test tests first.
build_herd() {
  build_tree "$HERD_BUILD" test
}

# What scripts/run serves: the server and the clients, in Release. A tree scripts/test configured
# already is only brought up to date for them (no reconfiguring back and forth); a new one is
# configured without tests or benchmarks, so that no test tool is needed.
build_herd_run() {
  local dir="$HERD_BUILD" log="$HERD_BUILD/build.log"
  if [ ! -f "$dir/build.ninja" ]; then
    build_tree "$dir" release
    return
  fi
  local targets=(herd-server herd-ctl)
  [ -n "$(ninja -C "$dir" -t targets all 2>/dev/null | grep '^herd-view:')" ] && targets+=(herd-view)
  ninja -C "$dir" -j"$(nproc)" "${targets[@]}" >>"$log" 2>&1 || {
    tail -n 60 "$log"; echo "herd: build failed (log: $log)"; return 1; }
}

# The sanitizer tree: clang at -O1 -g with assertions on, AddressSanitizer and
# UndefinedBehaviorSanitizer in every target and test, and the libFuzzer targets. Without the
# viewer and without the browser and Docker tests, which the Release tree runs.
build_herd_sanitize() {
  build_tree "$HERD_SANITIZE_BUILD" asan-ubsan
}

# A container engine for the container stage, named in HERD_ENGINE and HERD_COMPOSE: Docker when
# its daemon answers, otherwise podman with runc and podman-compose from Debian, which run the same
# Dockerfile and compose file. The base images come from their registry when it can be reached;
# where it cannot (no registry but Debian's), debian:12 is built from Debian's packages with
# debootstrap and tagged with its Docker Hub names (debian:12 and debian:12-slim), so the
# Dockerfile's FROM lines resolve unchanged. Returns non-zero when no engine can be had.
ensure_container_engine() {
  if command -v docker >/dev/null && docker info >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; then
    HERD_ENGINE=docker HERD_COMPOSE="docker compose"
    return 0
  fi
  # The dnsname plugin: podman's CNI networks resolve service names (the relays find "herd") only with it.
  ensure_packages --minimal podman runc podman-compose debootstrap golang-github-containernetworking-plugin-dnsname || return 1
  # Small VMs refuse crun's cgroup set-up and high rlimits; runc with explicit limits works. Only
  # where the machine has no engine configuration of its own.
  if [ ! -e /etc/containers/containers.conf ]; then
    as_root mkdir -p /etc/containers
    printf '%s\n' '# written by herd scripts/lib.sh (ensure_container_engine)' '[containers]' \
      'default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]' '[engine]' 'runtime = "runc"' |
      as_root tee /etc/containers/containers.conf >/dev/null
  fi
  HERD_ENGINE=podman HERD_COMPOSE=podman-compose
  local image=docker.io/library/debian
  if ! podman image exists "$image:12" && ! timeout 120 podman pull -q "$image:12" >/dev/null 2>&1; then
    echo "herd: no registry reachable for debian:12; building it from Debian's packages (debootstrap)"
    local root mirror
    root=$(mktemp -d)
    mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
    as_root debootstrap --variant=minbase bookworm "$root" ${mirror:+"$mirror"} >/dev/null || { as_root rm -rf "$root"; return 1; }
    [ -f /etc/apt/sources.list.d/debian.sources ] && as_root cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/"
    as_root tar -C "$root" -c . | podman import - "$image:12" >/dev/null || { as_root rm -rf "$root"; return 1; }
    as_root rm -rf "$root"
  fi
  if ! podman image exists "$image:12-slim" && ! timeout 120 podman pull -q "$image:12-slim" >/dev/null 2>&1; then
    podman tag "$image:12" "$image:12-slim"
  fi
  podman run --rm "$image:12" true
}
