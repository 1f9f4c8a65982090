#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_exit is called from the EXIT trap
# The main job, end to end on loopback, on a fresh machine with only Go and
# apt: build kitsmith; install (once, then reused) and start a registry and
# a local Sigstore stack (Fulcio, a timestamp authority, Rekor v2, a CT log
# and a test OIDC issuer); mint an identity token from the local issuer;
# `kitsmith publish kits/*/` keyless against them (validate, lint, build,
# check, push by digest, sign, attest SLSA provenance, verify, tag); then
# `kitsmith verify` and `kitsmith check` on the pushed references; print
# where everything is and the command for real Sigstore and a real
# registry; and stop what this run started.
#
# Environment: KITSMITH_REGISTRY_PORT and the other knobs of
# scripts/services.sh; KITSMITH_RUN_KEEP=1 leaves the services running.
set -euo pipefail

T0=${EPOCHREALTIME/,/.}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$ROOT"
SERVICES=(bash "$ROOT/scripts/services.sh")
KS=$ROOT/bin/kitsmith
OUT=$ROOT/out
IDENTITY=dev@example.com

since() { # since START -> seconds with one decimal
  local s=${1/./} e=${EPOCHREALTIME/[.,]/}
  local d=$(((e - s) / 100000))
  printf '%d.%ds' $((d / 10)) $((d % 10))
}
step() { printf '\n== %s\n' "$*"; STEP_T0=${EPOCHREALTIME/,/.}; }
done_step() { printf '   (%s)\n' "$(since "$STEP_T0")"; }

STOP=()
on_exit() {
  local rc=$? part
  if ((${#STOP[@]} > 0)); then
    if [[ ${KITSMITH_RUN_KEEP:-} == 1 ]]; then
      printf '\n== leaving the services running (KITSMITH_RUN_KEEP=1): stop them with scripts/services.sh stop\n'
    else
      printf '\n== stopping what this run started: %s\n' "${STOP[*]}"
      for part in "${STOP[@]}"; do "${SERVICES[@]}" stop "$part" || true; done
    fi
  fi
  printf '\n== main job %s in %s\n' "$([[ $rc == 0 ]] && echo done || echo "FAILED (exit $rc)")" "$(since "$T0")"
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# http_get URL: GET over plain HTTP from a loopback service, with curl if
# the machine has it, else with bash's /dev/tcp (a fresh machine may have
# neither curl nor wget).
http_get() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsS --max-time 10 "$1"
    return
  fi
  local rest=${1#http://} hostport path body
  hostport=${rest%%/*} path=/${rest#*/}
  exec 3<>"/dev/tcp/${hostport%:*}/${hostport#*:}"
  printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$path" "$hostport" >&3
  body=$(timeout 10 cat <&3)
  exec 3>&-
  [[ $body == "HTTP/1."?" 200"* ]] || { echo "GET $1: ${body%%$'\r'*}" >&2; return 1; }
  printf '%s' "${body#*$'\r\n\r\n'}"
}

step "building kitsmith"
ldflags=""
if command -v git >/dev/null 2>&1 && rev=$(git rev-parse HEAD 2>/dev/null); then
  ver=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
  ldflags="-X github.com/kitsmith/kitsmith/internal/version.version=$ver -X github.com/kitsmith/kitsmith/internal/version.revision=$rev"
fi
go build -ldflags "$ldflags" -o "$KS" ./cmd/kitsmith
"$KS" version
done_step

step "installing the local services (once; reused from the tool cache afterwards)"
cat <<'EOF'
   What: buildkitd and buildctl (moby/buildkit), the distribution registry,
   Fulcio, the timestamp authority, Rekor v2 (rekor-tiles), the TesseraCT CT
   log and cosign, each built from its pinned module version into
   ~/.cache/kitsmith/tools/NAME@VERSION/, plus runc and busybox-static from apt.
   How long: about 7 minutes on an idle 2-core machine the first time, up to 25 under load (a progress line
   every 30 s); a second once cached.
EOF
"${SERVICES[@]}" install
done_step

step "starting the registry and the Sigstore stack on 127.0.0.1"
# Sigstore first in STOP, so it stops before the base services.
for part in sigstore base; do
  if "${SERVICES[@]}" is-running "$part"; then
    echo "   $part services already running: using them, leaving them running"
  else
    echo "   $part services not running: starting them, and stopping them at the end"
    STOP+=("$part")
  fi
done
for part in base sigstore; do "${SERVICES[@]}" start "$part"; done
eval "$("${SERVICES[@]}" env)"
echo "   registry $KITSMITH_TEST_REGISTRY, Fulcio $KITSMITH_TEST_FULCIO_URL, Rekor $KITSMITH_TEST_REKOR_URL, TSA $KITSMITH_TEST_TSA_URL"
done_step

step "minting an identity token for $IDENTITY from the local OIDC issuer"
mkdir -p "$OUT"
TOKEN_FILE=$OUT/identity-token
(umask 077 && http_get "$KITSMITH_TEST_OIDC_URL/token?email=$IDENTITY" >"$TOKEN_FILE")
echo "   issuer $KITSMITH_TEST_OIDC_URL, token of $(wc -c <"$TOKEN_FILE") bytes in $TOKEN_FILE"
done_step

TEMPLATE="$KITSMITH_TEST_REGISTRY/kitsmith-main-job/{stem}:{version}"
TRUST=(--trusted-root "$KITSMITH_TEST_TRUSTED_ROOT")
step "kitsmith publish kits/*/ --tag-template '$TEMPLATE' (keyless)"
# --force: a rerun signs again with this run's stack (whose CA is new on
# every start) and moves the tags if the kits changed.
"$KS" publish --progress plain --fail-level warning --force \
  --tag-template "$TEMPLATE" --metadata-file "$OUT/publish.json" \
  --identity-token-file "$TOKEN_FILE" --signing-config "$KITSMITH_TEST_SIGNING_CONFIG" "${TRUST[@]}" \
  kits/*/
done_step

mapfile -t PINNED < <(sed -n 's/^      "pinned": "\(.*\)",$/\1/p' "$OUT/publish.json")
mapfile -t TAGS < <(sed -n 's/^      "reference": "\(.*\)",$/\1/p' "$OUT/publish.json")
((${#PINNED[@]} == ${#TAGS[@]} && ${#TAGS[@]} > 0)) || { echo "no references in $OUT/publish.json" >&2; exit 1; }

step "kitsmith verify and kitsmith check on the pushed references"
for ref in "${TAGS[@]}"; do
  "$KS" verify "${TRUST[@]}" --certificate-identity "$IDENTITY" --certificate-oidc-issuer "$KITSMITH_TEST_OIDC_URL" "$ref"
  "$KS" check "$ref"
done
done_step

cat <<EOF

== where everything is
   kitsmith binary   $KS
   published kits    ${TAGS[*]}
   pinned by digest  ${PINNED[*]}
   publish metadata  $OUT/publish.json (formatVersion 1: digests, referrers, signer, log index, timings)
   trusted root      $KITSMITH_TEST_TRUSTED_ROOT
   signing config    $KITSMITH_TEST_SIGNING_CONFIG
   tools and logs    scripts/services.sh status (what is installed, what runs, where its logs are)

== against real Sigstore and a real registry
   docker login registry.example.org      # kitsmith reads Docker's credential store
   kitsmith publish kits/*/ --tag-template 'registry.example.org/YOU/{stem}:{version}'
       # keyless: the identity token comes from SIGSTORE_ID_TOKEN or GitHub Actions
       # (permissions: id-token: write), or --identity-token; public-good Sigstore's
       # trust is read through TUF. --key cosign.key signs with a key instead.
   kitsmith verify registry.example.org/YOU/reshapr-outside:0.3.0 \\
       --certificate-identity YOU@example.org --certificate-oidc-issuer https://issuer.example.org
   On GitHub Actions: .github/workflows/release-kits.yml, or 'uses: kitsmith/kitsmith@v1'.
EOF
