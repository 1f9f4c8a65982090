# shellcheck shell=bash
# The local Sigstore stack of scripts/services.sh (sourced, not run).
#
# One stack per machine: timestamp-server always binds its metrics on :2112
# (all interfaces, not configurable), so a second one cannot start. The
# stack's state is therefore per machine too, not per checkout, and every
# checkout's services.sh finds and reuses a running stack:
#
#   $KITSMITH_SIGSTORE_DIR   default ${XDG_STATE_HOME:-$HOME/.local/state}/kitsmith/sigstore
#     bin/          kitsmith-oidc, kitsmith-trustroot (built from the checkout that started it)
#     run/          NAME.pid, NAME.exe, NAME.log of oidc, fulcio, tsa, rekor, ctlog
#     keys/         fresh keys of Rekor and the CT log, made at every start
#     rekor-log/ ct-log/   log storage, emptied at every start
#     trusted_root.json signing_config.json fulcio-config.json fulcio-root.pem
#     actions-token env.sh
#
# Ports, on 127.0.0.1 (KITSMITH_SIGSTORE_PORT_BASE, default 15550):
#   base+0 OIDC issuer   base+4 Fulcio gRPC   base+5 Fulcio HTTP   base+6 TSA
#   base+7 Rekor HTTP    base+8 Rekor gRPC    base+9 Rekor metrics base+12 CT log
#   base+10 Fulcio metrics: Fulcio binds it on ALL interfaces (it has no
#   metrics host flag), as timestamp-server does :2112. Nothing else
#   listens beyond loopback.
#
# KITSMITH_SIGSTORE_CT=0 starts the stack without the CT log: certificates
# then carry no SCT and verifiers need --insecure-ignore-sct.

SIG_DIR=${KITSMITH_SIGSTORE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/kitsmith/sigstore}
SIG_RUN=$SIG_DIR/run
SIG_BIN=$SIG_DIR/bin
SIG_SERVICES=(oidc fulcio tsa rekor ctlog)
TSA_METRICS_PORT=2112
SIG_READY_TIMEOUT=30 # seconds

sig_ports() {
  local base=${KITSMITH_SIGSTORE_PORT_BASE:-15550}
  [[ $base =~ ^[0-9]+$ ]] && ((base > 1024 && base < 65500)) ||
    die "KITSMITH_SIGSTORE_PORT_BASE must be a port number (1025-65499), got '$base'"
  P_OIDC=$base P_FULCIO_GRPC=$((base + 4)) P_FULCIO=$((base + 5)) P_TSA=$((base + 6))
  P_REKOR=$((base + 7)) P_REKOR_GRPC=$((base + 8)) P_REKOR_METRICS=$((base + 9))
  P_FULCIO_METRICS=$((base + 10)) P_CT=$((base + 12))
}

# The ports of the running stack are those it was started with.
sig_load_ports() {
  if [[ -f $SIG_DIR/ports ]]; then
    KITSMITH_SIGSTORE_PORT_BASE=$(cat "$SIG_DIR/ports")
  fi
  sig_ports
}

sig_ct_enabled() { [[ ${KITSMITH_SIGSTORE_CT:-1} != 0 ]]; }

# sig_running: every recorded service runs (the CT log only if recorded).
sig_running() {
  local s
  [[ -f $SIG_RUN/oidc.pid ]] || return 1
  for s in oidc fulcio tsa rekor; do
    running_pid "$SIG_RUN" "$s" >/dev/null || return 1
  done
  if [[ -f $SIG_RUN/ctlog.pid ]]; then running_pid "$SIG_RUN" ctlog >/dev/null || return 1; fi
  [[ -f $SIG_DIR/env.sh && -f $SIG_DIR/trusted_root.json ]]
}

sig_any_running() {
  local s
  for s in "${SIG_SERVICES[@]}"; do
    running_pid "$SIG_RUN" "$s" >/dev/null && return 0
  done
  return 1
}

sig_check_installed() {
  local entry name module bin
  for entry in "${GO_TOOLS[@]}"; do
    IFS='|' read -r name module _ bin _ <<<"$entry"
    case $name in registry) continue ;; tesseract) sig_ct_enabled || continue ;; esac
    [[ $(go_tool_version "$bin" "$module" || true) == "$(version_of "$name")" ]] ||
      die "$name $(version_of "$name") not installed ($bin): run scripts/services.sh install"
  done
}

sig_build_own_tools() {
  local t
  t=$(now)
  mkdir -p "$SIG_BIN"
  (cd "$ROOT" && GOFLAGS=-buildvcs=false CGO_ENABLED=0 go build -trimpath -tags kitsmith_testtools -o "$SIG_BIN/" \
    ./internal/cmd/kitsmith-oidc ./internal/cmd/kitsmith-trustroot) ||
    die "building kitsmith-oidc and kitsmith-trustroot failed"
  log "built kitsmith-oidc, kitsmith-trustroot into $SIG_BIN ($(elapsed "$t"))"
}

sig_write_fulcio_config() {
  local o="http://127.0.0.1:$P_OIDC"
  cat >"$SIG_DIR/fulcio-config.json" <<JSON
{"OIDCIssuers": {
  "$o/email":  {"IssuerURL": "$o/email",  "ClientID": "sigstore", "Type": "email"},
  "$o/github": {"IssuerURL": "$o/github", "ClientID": "sigstore", "Type": "github-workflow"}}}
JSON
}

# sig_wait NAME PORT PATH: poll every 0.2 s until PATH answers 200, the
# process exits, or SIG_READY_TIMEOUT passes.
sig_wait() {
  local name=$1 port=$2 path=$3 deadline
  deadline=$((SECONDS + SIG_READY_TIMEOUT))
  while ! probe_http "$port" "$path"; do
    running_pid "$SIG_RUN" "$name" >/dev/null || { sig_fail "$name exited"; }
    ((SECONDS < deadline)) || sig_fail "$name not answering GET 127.0.0.1:$port$path after ${SIG_READY_TIMEOUT}s"
    sleep 0.2
  done
}

sig_fail() {
  log "sigstore start failed: $*"
  local s
  for s in "${SIG_SERVICES[@]}"; do
    [[ -f $SIG_RUN/$s.log ]] || continue
    log "---- last lines of $SIG_RUN/$s.log ----"
    tail -n 15 "$SIG_RUN/$s.log" >&2 || true
  done
  sig_stop_all
  exit 1
}

sig_check_ports() {
  local p busy=()
  if port_in_use "$TSA_METRICS_PORT"; then
    die "port $TSA_METRICS_PORT is in use: timestamp-server always binds its metrics on :$TSA_METRICS_PORT (not configurable), so only one Sigstore stack can run on this machine. Is a stack already running? 'scripts/services.sh status sigstore' shows the one whose state is in $SIG_DIR (KITSMITH_SIGSTORE_DIR); otherwise find what holds port $TSA_METRICS_PORT."
  fi
  for p in "$P_OIDC" "$P_FULCIO_GRPC" "$P_FULCIO" "$P_TSA" "$P_REKOR" "$P_REKOR_GRPC" "$P_REKOR_METRICS" "$P_FULCIO_METRICS" "$P_CT"; do
    port_in_use "$p" && busy+=("$p")
  done
  ((${#busy[@]} == 0)) || die "port(s) ${busy[*]} on 127.0.0.1 in use; set KITSMITH_SIGSTORE_PORT_BASE to another base (now ${KITSMITH_SIGSTORE_PORT_BASE:-15550})"
}

sig_start() {
  local t
  t=$(now)
  mkdir -p "$SIG_RUN"
  if sig_running; then
    sig_load_ports
    log "sigstore stack already running (state $SIG_DIR); nothing to do"
    return 0
  fi
  sig_check_installed
  if sig_any_running; then
    log "sigstore stack only partly running; stopping the rest before a fresh start"
    sig_stop_all
  fi
  sig_ports
  sig_check_ports
  sig_build_own_tools
  echo "${KITSMITH_SIGSTORE_PORT_BASE:-15550}" >"$SIG_DIR/ports"
  rm -rf "$SIG_DIR/keys" "$SIG_DIR/rekor-log" "$SIG_DIR/ct-log" "$SIG_DIR/env.sh" \
    "$SIG_DIR/trusted_root.json" "$SIG_DIR/signing_config.json"
  mkdir -p "$SIG_DIR/keys" "$SIG_DIR/rekor-log" "$SIG_DIR/ct-log"
  chmod 700 "$SIG_DIR/keys"
  (umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$SIG_DIR/actions-token")
  "$SIG_BIN/kitsmith-trustroot" keygen -alg ed25519 -key "$SIG_DIR/keys/rekor.pem" -pub "$SIG_DIR/keys/rekor.pub"
  local ctflags=(--ct-log-url=)
  if sig_ct_enabled; then
    "$SIG_BIN/kitsmith-trustroot" keygen -alg ecdsa-p256 -key "$SIG_DIR/keys/ct.pem" -pub "$SIG_DIR/keys/ct.pub"
    ctflags=(--ct-log-url="http://127.0.0.1:$P_CT" --ct-log-public-key-path="$SIG_DIR/keys/ct.pub")
  fi
  sig_write_fulcio_config

  SPAWN_ENV=()
  spawn "$SIG_RUN" oidc "$SIG_BIN/kitsmith-oidc" --listen "127.0.0.1:$P_OIDC" \
    --actions-token-file "$SIG_DIR/actions-token"
  SPAWN_ENV=(GRPC_ENABLE_TXT_SERVICE_CONFIG=false)
  spawn "$SIG_RUN" fulcio "$FULCIO_BIN" serve --ca ephemeralca "${ctflags[@]}" \
    --config-path "$SIG_DIR/fulcio-config.json" \
    --host 127.0.0.1 --port "$P_FULCIO" --grpc-host 127.0.0.1 --grpc-port "$P_FULCIO_GRPC" \
    --metrics-port "$P_FULCIO_METRICS" --legacy-unix-domain-socket "@kitsmith-fulcio-legacy-$P_FULCIO"
  SPAWN_ENV=()
  spawn "$SIG_RUN" tsa "$TSA_BIN" serve --host 127.0.0.1 --port "$P_TSA" \
    --timestamp-signer memory --disable-ntp-monitoring
  spawn "$SIG_RUN" rekor "$REKOR_BIN" serve \
    --http-address 127.0.0.1 --http-port "$P_REKOR" --grpc-address 127.0.0.1 --grpc-port "$P_REKOR_GRPC" \
    --http-metrics-port "$P_REKOR_METRICS" --hostname 127.0.0.1 --storage-dir "$SIG_DIR/rekor-log" \
    --signer-filepath "$SIG_DIR/keys/rekor.pem" --checkpoint-interval 100ms --batch-max-age 10ms

  sig_wait oidc "$P_OIDC" /email/.well-known/openid-configuration
  sig_wait oidc "$P_OIDC" /github/.well-known/openid-configuration
  sig_wait fulcio "$P_FULCIO" /api/v2/trustBundle
  if sig_ct_enabled; then
    # TesseraCT accepts chains to Fulcio's root, which is new at every start.
    http_get "$P_FULCIO" /api/v1/rootCert >"$SIG_DIR/fulcio-root.pem" || sig_fail "could not read Fulcio's root certificate"
    spawn "$SIG_RUN" ctlog "$CT_BIN" --private_key="$SIG_DIR/keys/ct.pem" --origin=ct.local \
      --storage_dir="$SIG_DIR/ct-log" --roots_pem_file="$SIG_DIR/fulcio-root.pem" \
      --ext_key_usages=CodeSigning --http_endpoint="127.0.0.1:$P_CT" \
      --checkpoint_interval=100ms --batch_max_age=10ms
    sig_wait ctlog "$P_CT" /ct/v1/get-roots
  fi
  sig_wait tsa "$P_TSA" /api/v1/timestamp/certchain
  sig_wait rekor "$P_REKOR" /healthz

  local ctbuild=()
  sig_ct_enabled && ctbuild=(-ctlog "http://127.0.0.1:$P_CT" -ctlog-key "$SIG_DIR/keys/ct.pub")
  "$SIG_BIN/kitsmith-trustroot" build \
    -fulcio "http://127.0.0.1:$P_FULCIO" -tsa "http://127.0.0.1:$P_TSA/api/v1/timestamp" \
    -rekor "http://127.0.0.1:$P_REKOR" -rekor-key "$SIG_DIR/keys/rekor.pub" "${ctbuild[@]}" \
    -oidc "http://127.0.0.1:$P_OIDC/email" \
    -trusted-root "$SIG_DIR/trusted_root.json" -signing-config "$SIG_DIR/signing_config.json" ||
    sig_fail "building trusted_root.json / signing_config.json failed"
  sig_write_env
  log "sigstore stack ready: fulcio :$P_FULCIO, tsa :$P_TSA, rekor :$P_REKOR, oidc :$P_OIDC$(sig_ct_enabled && echo ", ct log :$P_CT") ($(elapsed "$t"))"
  log "trusted root $SIG_DIR/trusted_root.json, signing config $SIG_DIR/signing_config.json"
}

# env.sh holds the stack's export lines; `services.sh env` prints it.
sig_write_env() {
  local o="http://127.0.0.1:$P_OIDC" ct=""
  sig_ct_enabled && ct="http://127.0.0.1:$P_CT"
  {
    echo "# Local Sigstore stack started $(date -u +%Y-%m-%dT%H:%M:%SZ) by $ROOT/scripts/services.sh"
    printf 'export KITSMITH_TEST_TRUSTED_ROOT=%q\n' "$SIG_DIR/trusted_root.json"
    printf 'export KITSMITH_TEST_SIGNING_CONFIG=%q\n' "$SIG_DIR/signing_config.json"
    echo "# email identities; token: GET \$KITSMITH_TEST_OIDC_URL/token?email=dev@example.com (raw JWT, aud sigstore)"
    printf 'export KITSMITH_TEST_OIDC_URL=%q\n' "$o/email"
    echo "# GitHub-Actions-shaped identities; token: GET \$KITSMITH_TEST_OIDC_GITHUB_URL/token?repository=acme/kits&ref=refs/heads/main"
    printf 'export KITSMITH_TEST_OIDC_GITHUB_URL=%q\n' "$o/github"
    printf 'export KITSMITH_TEST_FULCIO_URL=%q\n' "http://127.0.0.1:$P_FULCIO"
    printf 'export KITSMITH_TEST_TSA_URL=%q\n' "http://127.0.0.1:$P_TSA/api/v1/timestamp"
    printf 'export KITSMITH_TEST_REKOR_URL=%q\n' "http://127.0.0.1:$P_REKOR"
    echo "# empty when the stack runs without a CT log (then certificates have no SCT: --insecure-ignore-sct)"
    printf 'export KITSMITH_TEST_CTLOG_URL=%q\n' "$ct"
    printf 'export KITSMITH_TEST_COSIGN=%q\n' "$COSIGN_BIN"
    printf 'export KITSMITH_TEST_ACTIONLINT=%q\n' "$ACTIONLINT_BIN"
    echo "# what a GitHub Actions job has as ACTIONS_ID_TOKEN_REQUEST_URL/_TOKEN (append &audience=sigstore)"
    printf 'export KITSMITH_TEST_ACTIONS_ID_TOKEN_REQUEST_URL=%q\n' "$o/github/actions-token?api-version=2.0"
    printf 'export KITSMITH_TEST_ACTIONS_ID_TOKEN_REQUEST_TOKEN=%q\n' "$(cat "$SIG_DIR/actions-token")"
  } >"$SIG_DIR/env.sh.tmp"
  mv -f "$SIG_DIR/env.sh.tmp" "$SIG_DIR/env.sh"
}

sig_stop_all() {
  local i
  # Reverse start order; each is waited for, so :2112 is free afterwards.
  for ((i = ${#SIG_SERVICES[@]} - 1; i >= 0; i--)); do
    stop_one "$SIG_RUN" "${SIG_SERVICES[i]}" 10
  done
  rm -f "$SIG_DIR/env.sh"
}

sig_stop() {
  if ! sig_any_running; then
    log "sigstore stack not running"
    rm -f "$SIG_DIR/env.sh"
    for s in "${SIG_SERVICES[@]}"; do rm -f "$SIG_RUN/$s.pid" "$SIG_RUN/$s.exe"; done
    return 0
  fi
  sig_stop_all
}

sig_env() {
  if sig_running; then
    grep -v '^#' "$SIG_DIR/env.sh"
  else
    echo "# sigstore stack not running (scripts/services.sh start)"
  fi
}

sig_status() {
  local s pid port path v
  echo "sigstore stack (state $SIG_DIR):"
  sig_load_ports
  for s in "${SIG_SERVICES[@]}"; do
    case $s in
      oidc) port=$P_OIDC path=/email/.well-known/openid-configuration ;;
      fulcio) port=$P_FULCIO path=/api/v2/trustBundle ;;
      tsa) port=$P_TSA path=/api/v1/timestamp/certchain ;;
      rekor) port=$P_REKOR path=/healthz ;;
      ctlog) port=$P_CT path=/ct/v1/get-roots ;;
    esac
    if pid=$(running_pid "$SIG_RUN" "$s"); then
      if probe_http "$port" "$path"; then v="ready"; else v="not answering"; fi
      printf '  %-17s pid %s, 127.0.0.1:%s (%s)\n' "$s" "$pid" "$port" "$v"
    else
      printf '  %-17s not running\n' "$s"
    fi
  done
  if sig_running; then
    echo "  env (eval \"\$(scripts/services.sh env)\"):"
    sed 's/^/    /' "$SIG_DIR/env.sh"
  fi
}
