#!/usr/bin/env bash
# Local services for kitsmith's integration tests, all on 127.0.0.1:
#   base:     BuildKit (buildkitd + buildctl, rootful, OCI worker) and a
#             distribution registry (no referrers API), per checkout;
#   sigstore: a real Sigstore stack, one per machine: a test OIDC issuer
#             (internal/cmd/kitsmith-oidc), Fulcio, a timestamp authority,
#             Rekor v2 and a TesseraCT CT log, plus trusted_root.json and
#             signing_config.json built from them at start-up.
#
# Usage: scripts/services.sh install|start|stop|env|status [all|base|sigstore]
#
#   install  apt-get runc + busybox-static (if missing); build every pinned
#            tool into the version-keyed tool cache (scripts/lib/install.sh),
#            skipping what is already there. Cold: about 7 min on an idle 2-core machine (up to 25 under load),
#            with a progress line every 30 s; warm: a second.
#   start    start the services (default all), wait until they answer.
#            No-op for what already runs, including a Sigstore stack that
#            another checkout started.
#   stop     stop them by the pids recorded at start, waiting for each exit.
#   env      print export lines: eval "$(scripts/services.sh env)"
#   status   what is installed (versions) and what runs, with the env.
#
# Per-checkout state is in the git-ignored .tools/ (KITSMITH_SERVICES_DIR):
#   .tools/state  .tools/run (pids, logs, socket, config)  .tools/registry-data
# The Sigstore stack's state is per machine: see scripts/lib/sigstore.sh.
# Go's own caches (GOPATH, GOCACHE) stay where Go puts them.
#
# Environment:
#   KITSMITH_TOOLS_CACHE         tool cache (default ${XDG_CACHE_HOME:-$HOME/.cache}/kitsmith/tools)
#   KITSMITH_SERVICES_DIR        per-checkout state (default REPO/.tools)
#   KITSMITH_REGISTRY_PORT       registry port on 127.0.0.1 (default 5000)
#   KITSMITH_SIGSTORE_DIR        Sigstore stack state (default ${XDG_STATE_HOME:-$HOME/.local/state}/kitsmith/sigstore)
#   KITSMITH_SIGSTORE_PORT_BASE  first Sigstore port (default 15550)
#   KITSMITH_SIGSTORE_CT         0: no CT log (certificates without SCTs)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
# shellcheck source=lib/common.sh
. "$ROOT/scripts/lib/common.sh"
# shellcheck source=lib/install.sh
. "$ROOT/scripts/lib/install.sh"
# shellcheck source=lib/sigstore.sh
. "$ROOT/scripts/lib/sigstore.sh"

READY_TIMEOUT=20 # seconds
STOP_TIMEOUT=5   # seconds per process

TOOLS=${KITSMITH_SERVICES_DIR:-$ROOT/.tools}
STATE=$TOOLS/state
RUN=$TOOLS/run
REGDATA=$TOOLS/registry-data
REG_CONFIG=$RUN/registry.yml
REG_PORTFILE=$RUN/registry.port

# A unix socket path must fit in 108 bytes. In a deeply nested checkout fall
# back to a per-checkout directory under /tmp (env always prints the real one).
SOCK=$RUN/buildkitd.sock
if ((${#SOCK} > 100)); then
  SOCK=/tmp/kitsmith-buildkit-$(printf '%s' "$TOOLS" | cksum | cut -d' ' -f1)/buildkitd.sock
fi

registry_port() { printf '%s' "${KITSMITH_REGISTRY_PORT:-5000}"; }

# Port of the running registry if one was recorded, else the requested one.
effective_port() {
  if [[ -f $REG_PORTFILE ]] && running_pid "$RUN" registry >/dev/null; then
    cat "$REG_PORTFILE"
  else
    registry_port
  fi
}

# Serialise install/start/stop between concurrent callers. The daemons are
# started with fd 9 closed so they never hold a lock. The Sigstore stack is
# per machine, so its lock is too.
take_lock() { # take_lock FILE
  mkdir -p "$(dirname "$1")"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$1"
    flock -w 3600 9 || die "could not lock $1"
  fi
}

# ---------------------------------------------------------------- base services

probe_buildkit() {
  [[ -S $SOCK ]] || return 1
  timeout 5 "$BK_DIR/buildctl" --addr "unix://$SOCK" debug workers >/dev/null 2>&1
}

probe_registry() { probe_http "$1" /v2/; }

# Remove pid files of dead processes and a socket nobody serves.
clean_stale() {
  local name
  for name in buildkitd registry; do
    if [[ -f $RUN/$name.pid ]] && ! running_pid "$RUN" "$name" >/dev/null; then
      log "removing stale $RUN/$name.pid"
      rm -f "$RUN/$name.pid" "$RUN/$name.exe"
    fi
  done
  [[ -f $RUN/registry.pid ]] || rm -f "$REG_PORTFILE"
  if [[ -e $SOCK && ! -f $RUN/buildkitd.pid ]]; then
    log "removing stale socket $SOCK"
    rm -f "$SOCK"
  fi
}

write_registry_config() {
  cat >"$REG_CONFIG" <<YAML
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
  addr: "127.0.0.1:$1"
YAML
}

base_fail() {
  local s
  log "start failed: $*"
  for s in buildkitd registry; do
    [[ -f $RUN/$s.log ]] || continue
    log "---- last lines of $RUN/$s.log ----"
    tail -n 25 "$RUN/$s.log" >&2 || true
  done
  for s in "${BASE_STARTED[@]}"; do stop_one "$RUN" "$s" "$STOP_TIMEOUT"; done
  [[ -f $RUN/buildkitd.pid ]] || rm -f "$SOCK"
  rm -f "$REG_PORTFILE"
  exit 1
}

base_start() {
  local t port bk_pid reg_pid
  BASE_STARTED=()
  t=$(now)
  port=$(registry_port)
  [[ $port =~ ^[0-9]+$ ]] || die "KITSMITH_REGISTRY_PORT must be a number, got '$port'"
  bk_version_ok || die "buildkitd/buildctl $BK_VERSION not installed: run scripts/services.sh install"
  [[ $(go_tool_version "$REG_BIN" github.com/distribution/distribution/v3 || true) == "$REG_VERSION" ]] ||
    die "registry $REG_VERSION not installed: run scripts/services.sh install"
  mkdir -p "$STATE/buildkit" "$RUN" "$REGDATA" "$(dirname "$SOCK")"
  clean_stale

  bk_pid=$(running_pid "$RUN" buildkitd || true)
  reg_pid=$(running_pid "$RUN" registry || true)
  if [[ -n $reg_pid ]]; then
    port=$(cat "$REG_PORTFILE" 2>/dev/null || echo "$port")
  elif port_in_use "$port"; then
    die "127.0.0.1:$port is already in use by another process; set KITSMITH_REGISTRY_PORT to a free port"
  fi

  if [[ -z $bk_pid ]]; then
    rm -f "$SOCK"
    SPAWN_ENV=("PATH=$BK_DIR:$SYS_PATH:$PATH")
    spawn "$RUN" buildkitd "$BK_DIR/buildkitd" --root "$STATE/buildkit" --addr "unix://$SOCK" \
      --oci-worker=true --containerd-worker=false
    bk_pid=$(cat "$RUN/buildkitd.pid")
    BASE_STARTED+=(buildkitd)
  else
    log "buildkitd already running (pid $bk_pid)"
  fi
  if [[ -z $reg_pid ]]; then
    write_registry_config "$port"
    SPAWN_ENV=(OTEL_TRACES_EXPORTER=none)
    spawn "$RUN" registry "$REG_BIN" serve "$REG_CONFIG"
    reg_pid=$(cat "$RUN/registry.pid")
    echo "$port" >"$REG_PORTFILE"
    BASE_STARTED+=(registry)
  else
    log "registry already running (pid $reg_pid, 127.0.0.1:$port)"
  fi
  SPAWN_ENV=()

  # Wait until both answer: poll every 0.2 s, up to READY_TIMEOUT seconds.
  local deadline=$((SECONDS + READY_TIMEOUT)) bk_ok="" reg_ok=""
  while :; do
    [[ -n $bk_ok ]] || { probe_buildkit && bk_ok=1; } || true
    [[ -n $reg_ok ]] || { probe_registry "$port" && reg_ok=1; } || true
    [[ -n $bk_ok && -n $reg_ok ]] && break
    running_pid "$RUN" buildkitd >/dev/null || base_fail "buildkitd exited"
    running_pid "$RUN" registry >/dev/null || base_fail "registry exited"
    ((SECONDS < deadline)) || base_fail "not ready after ${READY_TIMEOUT}s (buildkitd: ${bk_ok:-no}, registry: ${reg_ok:-no})"
    sleep 0.2
  done
  log "ready: buildkitd unix://$SOCK, registry 127.0.0.1:$port ($(elapsed "$t"))"
}

base_stop() {
  if [[ ! -f $RUN/buildkitd.pid && ! -f $RUN/registry.pid ]]; then
    log "buildkitd and registry not running"
  fi
  stop_one "$RUN" registry "$STOP_TIMEOUT"
  rm -f "$REG_PORTFILE"
  stop_one "$RUN" buildkitd "$STOP_TIMEOUT"
  rm -f "$SOCK"
  # runc leaves empty parent cgroups named 'buildkit'; rmdir only removes
  # empty ones, so a daemon of another checkout is not disturbed.
  local d
  for d in /sys/fs/cgroup/buildkit /sys/fs/cgroup/*/buildkit; do
    if [[ -d $d ]]; then rmdir "$d" 2>/dev/null || true; fi
  done
}

base_env() {
  printf 'export BUILDKIT_HOST=%q\n' "unix://$SOCK"
  printf 'export KITSMITH_TEST_REGISTRY=%q\n' "127.0.0.1:$(effective_port)"
  # the editor tests: Neovim (apt) and yaml-language-server (npm, tool cache)
  printf 'export KITSMITH_TEST_NVIM=%q\n' "$(command -v nvim || true)"
  printf 'export KITSMITH_TEST_YAML_LS=%q\n' "$YAMLLS_BIN"
  # shellcheck disable=SC2016 # $PATH is expanded by the caller's eval
  printf 'export PATH=%q:"$PATH"\n' "$BK_DIR"
}

base_status() {
  local pid v port
  echo "base services (state $TOOLS):"
  if pid=$(running_pid "$RUN" buildkitd); then
    if probe_buildkit; then v="ready"; else v="not answering"; fi
    printf '  %-17s pid %s, unix://%s (%s)\n' buildkitd "$pid" "$SOCK" "$v"
  else
    printf '  %-17s not running\n' buildkitd
  fi
  if pid=$(running_pid "$RUN" registry); then
    port=$(effective_port)
    if probe_registry "$port"; then v="ready"; else v="not answering"; fi
    printf '  %-17s pid %s, 127.0.0.1:%s (%s)\n' registry "$pid" "$port" "$v"
  else
    printf '  %-17s not running\n' registry
  fi
}

base_running() { running_pid "$RUN" buildkitd >/dev/null && running_pid "$RUN" registry >/dev/null; }

# ---------------------------------------------------------------- dispatch

usage() {
  echo "usage: $0 install|start|stop|env|status [all|base|sigstore]" >&2
  exit 2
}

what=${2:-all}
case $what in all | base | sigstore) ;; *) usage ;; esac
want_base() { [[ $what == all || $what == base ]]; }
want_sig() { [[ $what == all || $what == sigstore ]]; }

case ${1:-} in
  install)
    take_lock "$TOOLS_CACHE/.lock"
    install_all
    ;;
  start)
    if want_base; then take_lock "$RUN/.lock"; base_start; fi
    if want_sig; then take_lock "$SIG_DIR/.lock"; sig_start; fi
    ;;
  stop)
    if want_sig; then take_lock "$SIG_DIR/.lock"; sig_stop; fi
    if want_base; then take_lock "$RUN/.lock"; base_stop; fi
    ;;
  env)
    tool_env
    if want_base; then base_env; fi
    if want_sig; then sig_env; fi
    ;;
  status)
    echo "tool cache: $TOOLS_CACHE"
    print_tool_status
    if want_base; then base_status; fi
    if want_sig; then sig_status; fi
    ;;
  # Hidden helper for scripts/test.sh: exit 0 if the services run.
  is-running)
    if want_base; then base_running || exit 1; fi
    if want_sig; then sig_running || exit 1; fi
    ;;
  *) usage ;;
esac
