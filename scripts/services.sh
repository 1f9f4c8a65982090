#!/usr/bin/env bash
# Local services for kitsmith's integration tests: BuildKit (buildkitd +
# buildctl, rootful, OCI worker) and a distribution registry on 127.0.0.1.
#
# Usage: scripts/services.sh install|start|stop|env|status
#
#   install  apt-get runc + busybox-static (if missing); build buildkitd and
#            buildctl (BK_VERSION) and the registry (REG_VERSION) into
#            .tools/bin, skipping what already reports the pinned version.
#   start    start buildkitd and the registry, wait until both answer.
#            No-op when already running.
#   stop     stop them (TERM, up to 5 s each, then KILL), clean up.
#   env      print export lines: eval "$(scripts/services.sh env)"
#   status   what is installed (versions) and what is running.
#
# Everything lives in the git-ignored .tools/ at the repo root:
#   .tools/bin  .tools/state  .tools/run (pids, logs, socket, config)
#   .tools/registry-data
# Go's own caches (GOPATH, GOCACHE) are left where Go puts them, so building
# kitsmith afterwards reuses the downloaded modules.
#
# Environment:
#   KITSMITH_REGISTRY_PORT  registry port on 127.0.0.1 (default 5000)
set -euo pipefail

BK_VERSION=v0.34.2
REG_VERSION=v3.1.2
BK_MODULE=github.com/moby/buildkit
REG_PKG=github.com/distribution/distribution/v3/cmd/registry
APT_PACKAGES=(runc busybox-static)
READY_TIMEOUT=20   # seconds
STOP_TIMEOUT=5     # seconds per process

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
TOOLS=$ROOT/.tools
BIN=$TOOLS/bin
STATE=$TOOLS/state
RUN=$TOOLS/run
REGDATA=$TOOLS/registry-data

BK_PIDFILE=$RUN/buildkitd.pid
BK_LOG=$RUN/buildkitd.log
REG_PIDFILE=$RUN/registry.pid
REG_LOG=$RUN/registry.log
REG_CONFIG=$RUN/registry.yml
REG_PORTFILE=$RUN/registry.port

# A unix socket path must fit in 108 bytes. In a deeply nested checkout fall
# back to a per-checkout directory under /tmp (env always prints the real one).
SOCK=$RUN/buildkitd.sock
if ((${#SOCK} > 100)); then
  SOCK=/tmp/kitsmith-buildkit-$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1)/buildkitd.sock
fi

# Debian keeps runc in /usr/sbin; make sure sbin dirs are searched.
SYS_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

log() { printf '[services] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

now() { printf '%s' "${EPOCHREALTIME/,/.}"; }
# elapsed START -> seconds with one decimal, using only bash arithmetic
elapsed() {
  local s=${1/./} e
  e=$(now); e=${e/./}
  local d=$(((e - s) / 100000))
  printf '%d.%ds' $((d / 10)) $((d % 10))
}

registry_port() { printf '%s' "${KITSMITH_REGISTRY_PORT:-5000}"; }

# Port of the running registry if one was recorded, else the requested one.
effective_port() {
  if [[ -f $REG_PORTFILE ]] && pid_alive "$(cat "$REG_PIDFILE" 2>/dev/null || true)" registry; then
    cat "$REG_PORTFILE"
  else
    registry_port
  fi
}

# Serialise install/start/stop between concurrent callers on one checkout.
# The daemons are started with fd 9 closed so they never hold the lock.
take_lock() {
  mkdir -p "$RUN"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$RUN/.lock"
    flock -w 1200 9 || die "could not lock $RUN/.lock"
  fi
}

# pid_alive PID NAME: true if PID runs our binary .tools/bin/NAME (not a zombie).
pid_alive() {
  local pid=$1 name=$2 exe st
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  st=$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\) .*/\1/p' "/proc/$pid/stat" 2>/dev/null || true)
  [[ $st == Z ]] && return 1
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
  exe=${exe% (deleted)}
  [[ $exe == "$BIN/$name" ]]
}

running_pid() { # running_pid PIDFILE NAME -> prints pid if alive
  local pid
  [[ -f $1 ]] || return 1
  pid=$(cat "$1" 2>/dev/null || true)
  pid_alive "$pid" "$2" || return 1
  printf '%s' "$pid"
}

# ---------------------------------------------------------------- versions

bk_version_ok() {
  [[ -x $BIN/buildkitd && -x $BIN/buildctl ]] || return 1
  "$BIN/buildkitd" --version 2>/dev/null | grep -q " $BK_VERSION\( \|$\)" || return 1
  "$BIN/buildctl" --version 2>/dev/null | grep -q " $BK_VERSION\( \|$\)"
}

# The registry's --version depends on link flags; the module version in the
# binary's build info is authoritative.
reg_version() {
  [[ -x $BIN/registry ]] || return 1
  go version -m "$BIN/registry" 2>/dev/null |
    sed -n 's#^[[:space:]]*mod[[:space:]]\+github.com/distribution/distribution/v3[[:space:]]\+\([^[:space:]]*\).*#\1#p'
}
reg_version_ok() { [[ $(reg_version 2>/dev/null || true) == "$REG_VERSION" ]]; }

apt_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}
apt_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }

# ---------------------------------------------------------------- install

install_apt() {
  local t missing=() pkg sudo=()
  for pkg in "${APT_PACKAGES[@]}"; do
    apt_installed "$pkg" || missing+=("$pkg")
  done
  if ((${#missing[@]} == 0)); then
    log "apt: ${APT_PACKAGES[*]} already installed"
    return
  fi
  if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || die "not root and no sudo: cannot apt-get install ${missing[*]}"
    sudo=(sudo)
  fi
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install ${missing[*]} by hand"
  t=$(now)
  log "apt: installing ${missing[*]} ..."
  local aptopts=(-o DPkg::Lock::Timeout=300)
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${aptopts[@]}" update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${aptopts[@]}" install -y -qq "${missing[@]}" >/dev/null
  for pkg in "${missing[@]}"; do
    apt_installed "$pkg" || die "apt: $pkg did not install"
  done
  log "apt: installed ${missing[*]} ($(elapsed "$t"))"
}

install_buildkit() {
  if bk_version_ok; then
    log "buildkit: buildkitd + buildctl $BK_VERSION already installed"
    return
  fi
  local t dir
  t=$(now)
  log "buildkit: building buildkitd + buildctl $BK_VERSION (several minutes if Go's caches are cold) ..."
  # Download outside any module (the repo's go.mod must not be touched).
  dir=$(cd /tmp && GO111MODULE=on GOWORK=off go mod download -json "$BK_MODULE@$BK_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  [[ -n $dir && -f $dir/go.mod ]] || die "buildkit: go mod download $BK_MODULE@$BK_VERSION gave no module directory"
  # Build from inside the module directory, so buildkit is the main module and
  # its go.mod 'exclude' directives are allowed (plain 'go install' refuses).
  (cd "$dir" && GO111MODULE=on GOWORK=off GOFLAGS=-buildvcs=false CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X $BK_MODULE/version.Version=$BK_VERSION -X $BK_MODULE/version.Package=$BK_MODULE" \
    -tags "osusergo netgo static_build seccomp" -o "$BIN/" ./cmd/buildkitd ./cmd/buildctl)
  bk_version_ok || die "buildkit: built binaries do not report $BK_VERSION"
  log "buildkit: built buildkitd + buildctl $BK_VERSION ($(elapsed "$t"))"
}

install_registry() {
  if reg_version_ok; then
    log "registry: distribution $REG_VERSION already installed"
    return
  fi
  local t
  t=$(now)
  log "registry: building distribution registry $REG_VERSION ..."
  (cd /tmp && GO111MODULE=on GOWORK=off GOFLAGS=-buildvcs=false GOBIN="$BIN" CGO_ENABLED=0 \
    go install -trimpath -ldflags "-s -w" "$REG_PKG@$REG_VERSION")
  reg_version_ok || die "registry: built binary does not report $REG_VERSION"
  log "registry: built distribution registry $REG_VERSION ($(elapsed "$t"))"
}

cmd_install() {
  local t
  t=$(now)
  command -v go >/dev/null 2>&1 || die "go not found in PATH"
  take_lock
  mkdir -p "$BIN" "$STATE" "$RUN" "$REGDATA"
  install_apt
  install_buildkit
  install_registry
  log "install: done ($(elapsed "$t"))"
}

# ---------------------------------------------------------------- start/stop

probe_buildkit() {
  [[ -S $SOCK ]] || return 1
  timeout 5 "$BIN/buildctl" --addr "unix://$SOCK" debug workers >/dev/null 2>&1
}

# GET /v2/ on 127.0.0.1:PORT answers 200 (bash /dev/tcp; no curl needed).
probe_registry() {
  local port=$1
  (
    exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
    printf 'GET /v2/ HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n\r\n' "$port" >&3
    IFS= read -r -t 3 line <&3 || exit 1
    [[ $line =~ ^HTTP/1\.[01]\ 200 ]]
  ) 2>/dev/null
}

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Remove pid files of dead processes and a socket nobody serves.
clean_stale() {
  if [[ -f $BK_PIDFILE ]] && ! running_pid "$BK_PIDFILE" buildkitd >/dev/null; then
    log "removing stale $BK_PIDFILE"
    rm -f "$BK_PIDFILE"
  fi
  if [[ -f $REG_PIDFILE ]] && ! running_pid "$REG_PIDFILE" registry >/dev/null; then
    log "removing stale $REG_PIDFILE"
    rm -f "$REG_PIDFILE" "$REG_PORTFILE"
  fi
  if [[ -e $SOCK && ! -f $BK_PIDFILE ]]; then
    log "removing stale socket $SOCK"
    rm -f "$SOCK"
  fi
}

write_registry_config() {
  local port=$1
  cat >"$REG_CONFIG" <<EOF
# written by scripts/services.sh start
version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: "$REGDATA"
  delete:
    enabled: true
http:
  addr: "127.0.0.1:$port"
EOF
}

tail_logs() {
  local f
  for f in "$BK_LOG" "$REG_LOG"; do
    [[ -f $f ]] || continue
    log "---- last lines of $f ----"
    tail -n 25 "$f" >&2 || true
  done
}

cmd_start() {
  local t port bk_pid reg_pid started=()
  t=$(now)
  port=$(registry_port)
  [[ $port =~ ^[0-9]+$ ]] || die "KITSMITH_REGISTRY_PORT must be a number, got '$port'"
  bk_version_ok || die "buildkitd/buildctl $BK_VERSION not installed: run scripts/services.sh install"
  reg_version_ok || die "registry $REG_VERSION not installed: run scripts/services.sh install"
  take_lock
  mkdir -p "$STATE/buildkit" "$RUN" "$REGDATA" "$(dirname "$SOCK")"
  clean_stale

  bk_pid=$(running_pid "$BK_PIDFILE" buildkitd || true)
  reg_pid=$(running_pid "$REG_PIDFILE" registry || true)
  if [[ -n $bk_pid && -n $reg_pid ]]; then
    local rport
    rport=$(cat "$REG_PORTFILE" 2>/dev/null || echo "?")
    log "already running: buildkitd (pid $bk_pid), registry (pid $reg_pid) on 127.0.0.1:$rport; nothing to do"
    [[ $rport == "$port" ]] || log "note: the running registry uses port $rport, not the requested $port"
    return 0
  fi

  if [[ -z $reg_pid ]] && port_in_use "$port"; then
    die "127.0.0.1:$port is already in use by another process; set KITSMITH_REGISTRY_PORT to a free port"
  fi

  if [[ -z $bk_pid ]]; then
    rm -f "$SOCK"
    [[ -f $BK_LOG ]] && mv -f "$BK_LOG" "$BK_LOG.prev"
    PATH="$BIN:$SYS_PATH:$PATH" nohup "$BIN/buildkitd" \
      --root "$STATE/buildkit" \
      --addr "unix://$SOCK" \
      --oci-worker=true --containerd-worker=false \
      </dev/null >"$BK_LOG" 2>&1 9>&- &
    bk_pid=$!
    echo "$bk_pid" >"$BK_PIDFILE"
    started+=(buildkitd)
    log "buildkitd started (pid $bk_pid, log $BK_LOG)"
  else
    log "buildkitd already running (pid $bk_pid)"
  fi

  if [[ -z $reg_pid ]]; then
    write_registry_config "$port"
    [[ -f $REG_LOG ]] && mv -f "$REG_LOG" "$REG_LOG.prev"
    OTEL_TRACES_EXPORTER=none nohup "$BIN/registry" serve "$REG_CONFIG" \
      </dev/null >"$REG_LOG" 2>&1 9>&- &
    reg_pid=$!
    echo "$reg_pid" >"$REG_PIDFILE"
    echo "$port" >"$REG_PORTFILE"
    started+=(registry)
    log "registry started (pid $reg_pid, 127.0.0.1:$port, log $REG_LOG)"
  else
    port=$(cat "$REG_PORTFILE" 2>/dev/null || echo "$port")
    log "registry already running (pid $reg_pid, 127.0.0.1:$port)"
  fi

  # Wait until both answer: poll every 0.2 s, up to READY_TIMEOUT seconds.
  local deadline bk_ok="" reg_ok="" why=""
  deadline=$(( ${t%.*} + READY_TIMEOUT ))
  while :; do
    [[ -n $bk_ok ]] || { probe_buildkit && bk_ok=1; } || true
    [[ -n $reg_ok ]] || { probe_registry "$port" && reg_ok=1; } || true
    [[ -n $bk_ok && -n $reg_ok ]] && break
    if ! pid_alive "$bk_pid" buildkitd; then why="buildkitd exited"; break; fi
    if ! pid_alive "$reg_pid" registry; then why="registry exited"; break; fi
    if (( ${EPOCHREALTIME%[.,]*} >= deadline )); then why="not ready after ${READY_TIMEOUT}s"; break; fi
    sleep 0.2
  done
  if [[ -n $why ]]; then
    log "start failed: $why (buildkitd ready: ${bk_ok:-no}, registry ready: ${reg_ok:-no})"
    tail_logs
    local s
    for s in "${started[@]}"; do
      case $s in
        buildkitd) stop_one "$BK_PIDFILE" buildkitd ;;
        registry) stop_one "$REG_PIDFILE" registry; rm -f "$REG_PORTFILE" ;;
      esac
    done
    [[ -f $BK_PIDFILE ]] || rm -f "$SOCK"
    exit 1
  fi
  log "ready: buildkitd unix://$SOCK, registry 127.0.0.1:$port ($(elapsed "$t"))"
}

# stop_one PIDFILE NAME: TERM, wait up to STOP_TIMEOUT s, then KILL.
stop_one() {
  local pidfile=$1 name=$2 pid i
  [[ -f $pidfile ]] || return 0
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if pid_alive "$pid" "$name"; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < STOP_TIMEOUT * 10; i++)); do
      pid_alive "$pid" "$name" || break
      sleep 0.1
    done
    if pid_alive "$pid" "$name"; then
      log "$name (pid $pid) still running after ${STOP_TIMEOUT}s; sending KILL"
      kill -KILL "$pid" 2>/dev/null || true
      for ((i = 0; i < 20; i++)); do pid_alive "$pid" "$name" || break; sleep 0.1; done
    fi
    log "$name (pid $pid) stopped"
  fi
  rm -f "$pidfile"
}

cmd_stop() {
  take_lock
  if [[ ! -f $BK_PIDFILE && ! -f $REG_PIDFILE ]]; then
    log "not running"
  fi
  stop_one "$REG_PIDFILE" registry
  rm -f "$REG_PORTFILE"
  stop_one "$BK_PIDFILE" buildkitd
  rm -f "$SOCK"
  # runc leaves empty parent cgroups named 'buildkit'; rmdir only removes
  # empty ones, so a daemon of another checkout is not disturbed.
  local d
  for d in /sys/fs/cgroup/buildkit /sys/fs/cgroup/*/buildkit; do
    if [[ -d $d ]]; then rmdir "$d" 2>/dev/null || true; fi
  done
}

# ---------------------------------------------------------------- env/status

cmd_env() {
  printf 'export BUILDKIT_HOST=%q\n' "unix://$SOCK"
  printf 'export KITSMITH_TEST_REGISTRY=%q\n' "127.0.0.1:$(effective_port)"
  # shellcheck disable=SC2016 # $PATH is expanded by the caller's eval
  printf 'export PATH=%q:"$PATH"\n' "$BIN"
}

cmd_status() {
  local v pid pkg
  echo "tools dir: $TOOLS"
  echo "installed:"
  for pkg in "${APT_PACKAGES[@]}"; do
    if apt_installed "$pkg"; then v=$(apt_version "$pkg"); else v="missing"; fi
    printf '  %-15s %s\n' "$pkg" "$v"
  done
  for b in buildkitd buildctl; do
    if [[ -x $BIN/$b ]]; then v=$("$BIN/$b" --version 2>/dev/null || echo "unknown"); else v="missing"; fi
    printf '  %-15s %s\n' "$b" "$v"
  done
  if [[ -x $BIN/registry ]]; then v="distribution $(reg_version || echo unknown)"; else v="missing"; fi
  printf '  %-15s %s\n' registry "$v"
  printf '  %-15s pinned: buildkit %s, registry %s\n' "" "$BK_VERSION" "$REG_VERSION"
  echo "running:"
  if pid=$(running_pid "$BK_PIDFILE" buildkitd); then
    if probe_buildkit; then v="ready"; else v="not answering"; fi
    printf '  %-15s pid %s, unix://%s (%s)\n' buildkitd "$pid" "$SOCK" "$v"
  else
    printf '  %-15s not running\n' buildkitd
  fi
  if pid=$(running_pid "$REG_PIDFILE" registry); then
    local port
    port=$(effective_port)
    if probe_registry "$port"; then v="ready"; else v="not answering"; fi
    printf '  %-15s pid %s, 127.0.0.1:%s (%s)\n' registry "$pid" "$port" "$v"
  else
    printf '  %-15s not running\n' registry
  fi
}

# Hidden helper for scripts/test.sh: exit 0 if both services run.
cmd_is_running() {
  running_pid "$BK_PIDFILE" buildkitd >/dev/null && running_pid "$REG_PIDFILE" registry >/dev/null
}

usage() {
  echo "usage: $0 install|start|stop|env|status" >&2
  exit 2
}

case ${1:-} in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  env) cmd_env ;;
  status) cmd_status ;;
  is-running) cmd_is_running ;;
  *) usage ;;
esac
