#!/usr/bin/env bash
# Installs kitsmith for the composite action (action.yml). Every input comes
# in through the environment and is only ever compared or quoted, never
# evaluated.
#
#   install.sh plan      prints mode=recorded|signed|source (a step output)
#   install.sh install   installs kitsmith into $RUNNER_TEMP/kitsmith-bin and
#                        adds it to $GITHUB_PATH
#
# Modes:
#   recorded  the release this action records (action/version), verified
#             against the checksums recorded beside it (action/checksums.txt)
#             when the release workflow pinned the action. The default, and
#             `version:` naming that same release.
#   signed    another release (`version: vX.Y.Z`, or the action's own ref when
#             it is a release tag without a record): its checksums.txt is
#             verified with cosign verify-blob against the signature bundle
#             beside it (the release workflow's keyless identity), then the
#             archive against checksums.txt.
#   source    built with go from the action's own checkout (no download).
#
# Environment: INPUT_VERSION, ACTION_PATH, ACTION_REF, RUNNER_OS, RUNNER_ARCH,
# RUNNER_TEMP, GITHUB_PATH; KITSMITH_RELEASES_URL (default GitHub's release
# downloads of kitsmith/kitsmith: the install test points it at a loopback
# server); KITSMITH_RELEASE_IDENTITY, KITSMITH_RELEASE_ISSUER and
# KITSMITH_COSIGN_TRUSTED_ROOT change what signed mode trusts (tests).
set -euo pipefail

die() { echo "::error title=kitsmith install::$*" >&2; exit 1; }
note() { echo "kitsmith install: $*" >&2; }

RELEASES_URL=${KITSMITH_RELEASES_URL:-https://github.com/kitsmith/kitsmith/releases/download}
IDENTITY_REPO=https://github.com/kitsmith/kitsmith/.github/workflows/release.yml
ISSUER=${KITSMITH_RELEASE_ISSUER:-https://token.actions.githubusercontent.com}
ACTION_PATH=${ACTION_PATH:?ACTION_PATH is not set}
VERSION_RE='^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$'

recorded_version() {
  [[ -f $ACTION_PATH/action/version && -f $ACTION_PATH/action/checksums.txt ]] || return 1
  local v
  v=$(tr -d '[:space:]' <"$ACTION_PATH/action/version")
  [[ $v =~ $VERSION_RE ]] || die "action/version holds '$v', not a release version"
  printf '%s' "$v"
}

# plan: which mode, and which version ($mode $version)
plan() {
  local want=${INPUT_VERSION:-} rec=""
  rec=$(recorded_version || true)
  if [[ $want == source ]]; then
    echo "source -"
  elif [[ -z $want ]]; then
    if [[ -n $rec ]]; then
      echo "recorded $rec"
    elif [[ ${ACTION_REF:-} =~ $VERSION_RE ]]; then
      echo "signed $ACTION_REF"
    else
      die "this action ref (${ACTION_REF:-unknown}) records no kitsmith release: use a released action (kitsmith/kitsmith@v1), or set version: vX.Y.Z or version: source"
    fi
  elif [[ $want =~ $VERSION_RE ]]; then
    if [[ $want == "$rec" ]]; then echo "recorded $want"; else echo "signed $want"; fi
  else
    die "version: must be a release tag such as v1.2.0, or source (not latest: a pinned action installs a pinned kitsmith)"
  fi
}

platform() {
  local os arch
  case ${RUNNER_OS:-Linux} in
    Linux) os=linux ;; macOS) os=darwin ;; Windows) os=windows ;;
    *) die "unsupported runner OS ${RUNNER_OS}" ;;
  esac
  case ${RUNNER_ARCH:-X64} in
    X64) arch=amd64 ;; ARM64) arch=arm64 ;;
    *) die "unsupported runner architecture ${RUNNER_ARCH}: release archives are amd64 and arm64" ;;
  esac
  printf '%s %s' "$os" "$arch"
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

# fetch URL FILE: one bounded download; says which URL failed and how
fetch() {
  local code
  code=$(curl --silent --show-error --location --proto '=https,http' --retry 2 --connect-timeout 10 --max-time 300 \
    --output "$2" --write-out '%{http_code}' "$1") || die "downloading $1 failed"
  [[ $code == 200 ]] || die "downloading $1 failed: HTTP $code"
}

# expected ARCHIVE CHECKSUMS: the sha256 the checksum file records for ARCHIVE
expected() {
  awk -v f="$1" '$2 == f || $2 == "*" f { print $1; exit }' "$2"
}

install() {
  local mode version os arch archive ext tmp want got bin p
  p=$(plan) || exit 1
  read -r mode version <<<"$p"
  bin=${RUNNER_TEMP:?RUNNER_TEMP is not set}/kitsmith-bin
  mkdir -p "$bin"
  if [[ $mode == source ]]; then
    command -v go >/dev/null 2>&1 || die "version: source needs Go (the action sets it up when none is on PATH)"
    note "building kitsmith from $ACTION_PATH with $(go version)"
    # go.mod's go line may name a newer Go than PATH's: Go fetches it
    # for this build only (GOTOOLCHAIN), PATH's go stays what it was.
    (cd "$ACTION_PATH" && CGO_ENABLED=0 go build -trimpath -o "$bin/" ./cmd/kitsmith)
  else
    p=$(platform) || exit 1
    read -r os arch <<<"$p"
    ext=tar.gz
    [[ $os == windows ]] && ext=zip
    archive=kitsmith_${version#v}_${os}_${arch}.$ext
    tmp=$(mktemp -d "$RUNNER_TEMP/kitsmith-dl.XXXXXX")
    if [[ $mode == recorded ]]; then
      want=$(expected "$archive" "$ACTION_PATH/action/checksums.txt")
      [[ -n $want ]] || die "action/checksums.txt records no checksum for $archive (release $version has no $os/$arch archive)"
      note "$version ($mode): $archive, sha256 $want recorded in the action"
    else
      command -v cosign >/dev/null 2>&1 || die "verifying release $version needs cosign on PATH (the action installs it)"
      fetch "$RELEASES_URL/$version/checksums.txt" "$tmp/checksums.txt"
      fetch "$RELEASES_URL/$version/checksums.txt.sigstore.json" "$tmp/checksums.txt.sigstore.json"
      local vargs=(verify-blob --bundle "$tmp/checksums.txt.sigstore.json"
        --certificate-identity "${KITSMITH_RELEASE_IDENTITY:-$IDENTITY_REPO@refs/tags/$version}"
        --certificate-oidc-issuer "$ISSUER")
      [[ -n ${KITSMITH_COSIGN_TRUSTED_ROOT:-} ]] && vargs+=(--trusted-root "$KITSMITH_COSIGN_TRUSTED_ROOT")
      cosign "${vargs[@]}" "$tmp/checksums.txt" >&2 ||
        die "checksums.txt of $version is not signed by kitsmith's release workflow: refusing to install"
      want=$(expected "$archive" "$tmp/checksums.txt")
      [[ -n $want ]] || die "the signed checksums.txt of $version lists no $archive"
      note "$version ($mode): $archive, sha256 $want from the signed checksums.txt"
    fi
    fetch "$RELEASES_URL/$version/$archive" "$tmp/$archive"
    got=$(sha256_of "$tmp/$archive")
    [[ $got == "$want" ]] || die "checksum mismatch for $archive: expected $want, downloaded $got: refusing to install"
    if [[ $ext == zip ]]; then
      (cd "$tmp" && unzip -q -o "$archive" kitsmith.exe) && mv -f "$tmp/kitsmith.exe" "$bin/"
    else
      tar -xzf "$tmp/$archive" -C "$tmp" kitsmith && mv -f "$tmp/kitsmith" "$bin/"
    fi
    rm -rf "$tmp"
  fi
  echo "$bin" >>"${GITHUB_PATH:?GITHUB_PATH is not set}"
  "$bin/kitsmith" version
}

case ${1:-} in
  plan)
    p=$(plan) || exit 1
    read -r mode version <<<"$p"
    echo "mode=$mode"
    echo "version=$version"
    ;;
  install) install ;;
  *) echo "usage: $0 plan|install" >&2; exit 2 ;;
esac
