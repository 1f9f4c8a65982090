# shellcheck shell=bash
# The tool cache of scripts/services.sh (sourced, not run).
#
# Every third-party binary lives in a version-keyed directory of a cache
# shared by all checkouts of the repository (a fresh clone reuses it):
#
#   $KITSMITH_TOOLS_CACHE            default ${XDG_CACHE_HOME:-$HOME/.cache}/kitsmith/tools
#     buildkit@v0.34.2/{buildkitd,buildctl}
#     distribution@v3.1.2/registry
#     fulcio@v1.8.8/fulcio
#     timestamp-authority@v2.1.5/timestamp-server
#     rekor-tiles@v2.3.0/posix            (rekor-server, POSIX backend)
#     tesseract@v0.1.1/posix              (TesseraCT CT log, POSIX backend)
#     cosign@v3.1.3/cosign
#     actionlint@v1.7.12/actionlint
#     yaml-language-server@1.15.0/node_modules/.bin/yaml-language-server  (npm)
#     goreleaser@v2.15.1/goreleaser       (release builds: .goreleaser.yaml)
#     syft@v1.57.1/syft                   (SPDX SBOMs of release archives)
#     sarif-multitool@5.7.0/              (npm @microsoft/sarif-multitool)
#
# Each is built with `go install PKG@VERSION` outside kitsmith's module
# (its own go.mod decides its dependencies), except buildkit, built inside
# its module directory because its go.mod has exclude directives. A binary
# counts as installed when the module version in its build info (or, for
# buildkit, its --version) is the pinned one. Builds go to a temporary
# directory first, so an interrupted build leaves nothing half-installed.

TOOLS_CACHE=${KITSMITH_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kitsmith/tools}

BK_VERSION=v0.34.2
BK_MODULE=github.com/moby/buildkit
REG_VERSION=v3.1.2
FULCIO_VERSION=v1.8.8
TSA_VERSION=v2.1.5
TSA_GOTOOLCHAIN=go1.27.3 # timestamp-authority v2.1.4+ declares go 1.27
REKOR_VERSION=v2.3.0     # v2.4.x needs a Fulcio version the module proxy refuses
CT_VERSION=v0.1.1
COSIGN_VERSION=v3.1.3
ACTIONLINT_VERSION=v1.7.12
YAMLLS_VERSION=1.15.0 # yaml-language-server, for the editor-schema tests (npm)
GORELEASER_VERSION=v2.15.1 # v2.18.2 and newer need a newer Go
SYFT_VERSION=v1.57.1
SARIF_MULTITOOL_VERSION=5.7.0
PROGRESS_EVERY=30 # seconds between "still building" lines

BK_DIR=$TOOLS_CACHE/buildkit@$BK_VERSION
REG_BIN=$TOOLS_CACHE/distribution@$REG_VERSION/registry
FULCIO_BIN=$TOOLS_CACHE/fulcio@$FULCIO_VERSION/fulcio
TSA_BIN=$TOOLS_CACHE/timestamp-authority@$TSA_VERSION/timestamp-server
REKOR_BIN=$TOOLS_CACHE/rekor-tiles@$REKOR_VERSION/posix
CT_BIN=$TOOLS_CACHE/tesseract@$CT_VERSION/posix
COSIGN_BIN=$TOOLS_CACHE/cosign@$COSIGN_VERSION/cosign
ACTIONLINT_BIN=$TOOLS_CACHE/actionlint@$ACTIONLINT_VERSION/actionlint
YAMLLS_DIR=$TOOLS_CACHE/yaml-language-server@$YAMLLS_VERSION
YAMLLS_BIN=$YAMLLS_DIR/node_modules/.bin/yaml-language-server
GORELEASER_BIN=$TOOLS_CACHE/goreleaser@$GORELEASER_VERSION/goreleaser
SYFT_BIN=$TOOLS_CACHE/syft@$SYFT_VERSION/syft
SARIF_MULTITOOL_DIR=$TOOLS_CACHE/sarif-multitool@$SARIF_MULTITOOL_VERSION
# The native binary, not the npm bin.js wrapper (which runs its arguments
# through a shell, so a ';' in --rule-kind "Gh;Sarif" splits the command).
case $(uname -s) in Darwin) SARIF_MULTITOOL_OS=darwin ;; *) SARIF_MULTITOOL_OS=linux ;; esac
SARIF_MULTITOOL_BIN=$SARIF_MULTITOOL_DIR/node_modules/@microsoft/sarif-multitool-$SARIF_MULTITOOL_OS/Sarif.Multitool

# name|module|package|binary path|usual cold build time on 2 cores|GOTOOLCHAIN
GO_TOOLS=(
  "registry|github.com/distribution/distribution/v3|github.com/distribution/distribution/v3/cmd/registry|$REG_BIN|1-3 min|"
  "fulcio|github.com/sigstore/fulcio|github.com/sigstore/fulcio|$FULCIO_BIN|4-7 min|"
  "timestamp-server|github.com/sigstore/timestamp-authority/v2|github.com/sigstore/timestamp-authority/v2/cmd/timestamp-server|$TSA_BIN|3-4 min, plus a one-time 253 MB download of the $TSA_GOTOOLCHAIN toolchain|$TSA_GOTOOLCHAIN"
  "rekor-server|github.com/sigstore/rekor-tiles/v2|github.com/sigstore/rekor-tiles/v2/cmd/rekor-server/posix|$REKOR_BIN|1-2 min|"
  "tesseract|github.com/transparency-dev/tesseract|github.com/transparency-dev/tesseract/cmd/tesseract/posix|$CT_BIN|30-90 s|"
  "cosign|github.com/sigstore/cosign/v3|github.com/sigstore/cosign/v3/cmd/cosign|$COSIGN_BIN|4-6 min|"
  "actionlint|github.com/rhysd/actionlint|github.com/rhysd/actionlint/cmd/actionlint|$ACTIONLINT_BIN|under 1 min|"
  "goreleaser|github.com/goreleaser/goreleaser/v2|github.com/goreleaser/goreleaser/v2|$GORELEASER_BIN|830 s measured on 2 cores under heavy load|"
  "syft|github.com/anchore/syft|github.com/anchore/syft/cmd/syft|$SYFT_BIN|1279 s measured on 2 cores under heavy load|"
)

# version of a go-installed tool from its build info
go_tool_version() { # go_tool_version BIN MODULE
  [[ -x $1 ]] || return 1
  go version -m "$1" 2>/dev/null | awk -v m="$2" '$1 == "mod" && $2 == m { print $3; exit }'
}

bk_version_ok() {
  [[ -x $BK_DIR/buildkitd && -x $BK_DIR/buildctl ]] || return 1
  "$BK_DIR/buildkitd" --version 2>/dev/null | grep -q " $BK_VERSION\( \|$\)" || return 1
  "$BK_DIR/buildctl" --version 2>/dev/null | grep -q " $BK_VERSION\( \|$\)"
}

version_of() { # version_of NAME -> the pinned version of a GO_TOOLS entry
  case $1 in
    registry) echo "$REG_VERSION" ;;
    fulcio) echo "$FULCIO_VERSION" ;;
    timestamp-server) echo "$TSA_VERSION" ;;
    rekor-server) echo "$REKOR_VERSION" ;;
    tesseract) echo "$CT_VERSION" ;;
    cosign) echo "$COSIGN_VERSION" ;;
    actionlint) echo "$ACTIONLINT_VERSION" ;;
    goreleaser) echo "$GORELEASER_VERSION" ;;
    syft) echo "$SYFT_VERSION" ;;
  esac
}

# with_progress LABEL CMD...: run CMD, printing a line every PROGRESS_EVERY
# seconds while it runs; returns its exit status.
with_progress() {
  local label=$1 pid t0=$SECONDS n=0 rc=0
  shift
  "$@" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    n=$((n + 1))
    if ((n % PROGRESS_EVERY == 0)) && kill -0 "$pid" 2>/dev/null; then
      log "  ... $label still building ($((SECONDS - t0))s so far)"
    fi
  done
  wait "$pid" || rc=$?
  return "$rc"
}

go_env_for_tools() {
  # Outside any module or workspace, never from the repo's go.mod.
  printf '%s\n' GO111MODULE=on GOWORK=off GOFLAGS=-buildvcs=false CGO_ENABLED=0
}

install_go_tool() { # install_go_tool "ENTRY"
  local name module pkg bin est toolchain version t tmp have
  IFS='|' read -r name module pkg bin est toolchain <<<"$1"
  version=$(version_of "$name")
  have=$(go_tool_version "$bin" "$module" || true)
  if [[ $have == "$version" ]]; then
    log "$name $version: cached ($bin)"
    return
  fi
  [[ -n $have ]] && log "$name: cached binary is $have, not $version; rebuilding"
  t=$(now)
  log "$name $version: building $pkg@$version (usually $est with cold Go caches; seconds when warm) ..."
  mkdir -p "$(dirname "$bin")"
  tmp=$(mktemp -d "$(dirname "$bin")/.build.XXXXXX")
  local envs
  mapfile -t envs < <(go_env_for_tools)
  [[ -n $toolchain ]] && envs+=("GOTOOLCHAIN=$toolchain")
  if ! (cd /tmp && with_progress "$name" env "${envs[@]}" GOBIN="$tmp" \
    go install -trimpath -ldflags "-s -w" "$pkg@$version"); then
    rm -rf "$tmp"
    die "$name: go install $pkg@$version failed"
  fi
  mv -f "$tmp/$(basename "$bin")" "$bin"
  rm -rf "$tmp"
  [[ $(go_tool_version "$bin" "$module" || true) == "$version" ]] || die "$name: built binary does not report $version"
  log "$name $version: built ($(elapsed "$t"))"
}

install_buildkit() {
  if bk_version_ok; then
    log "buildkit $BK_VERSION: cached ($BK_DIR)"
    return
  fi
  local t dir tmp envs
  t=$(now)
  log "buildkit $BK_VERSION: building buildkitd + buildctl (usually 3-6 min with cold Go caches) ..."
  mapfile -t envs < <(go_env_for_tools)
  # Download outside any module (the repo's go.mod must not be touched).
  dir=$(cd /tmp && env "${envs[@]}" go mod download -json "$BK_MODULE@$BK_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  [[ -n $dir && -f $dir/go.mod ]] || die "buildkit: go mod download $BK_MODULE@$BK_VERSION gave no module directory"
  mkdir -p "$BK_DIR"
  tmp=$(mktemp -d "$BK_DIR/.build.XXXXXX")
  # Build from inside the module directory, so buildkit is the main module and
  # its go.mod 'exclude' directives are allowed (plain 'go install' refuses).
  if ! (cd "$dir" && with_progress buildkit env "${envs[@]}" go build -trimpath \
    -ldflags "-s -w -X $BK_MODULE/version.Version=$BK_VERSION -X $BK_MODULE/version.Package=$BK_MODULE" \
    -tags "osusergo netgo static_build seccomp" -o "$tmp/" ./cmd/buildkitd ./cmd/buildctl); then
    rm -rf "$tmp"
    die "buildkit: build failed"
  fi
  mv -f "$tmp/buildkitd" "$tmp/buildctl" "$BK_DIR/"
  rm -rf "$tmp"
  bk_version_ok || die "buildkit: built binaries do not report $BK_VERSION"
  log "buildkit $BK_VERSION: built ($(elapsed "$t"))"
}

# The SARIF Multitool (SARIF validation with GitHub's rules) is an npm
# package carrying a self-contained .NET binary per platform; npm installs it
# into its version-keyed directory, never into the repository.
sarif_multitool_ok() {
  [[ -x $SARIF_MULTITOOL_BIN ]] || return 1
  [[ $(node -p "require('$SARIF_MULTITOOL_DIR/node_modules/@microsoft/sarif-multitool/package.json').version" 2>/dev/null) == "$SARIF_MULTITOOL_VERSION" ]]
}

install_sarif_multitool() {
  if sarif_multitool_ok; then
    log "sarif-multitool $SARIF_MULTITOOL_VERSION: cached ($SARIF_MULTITOOL_DIR)"
    return
  fi
  command -v npm >/dev/null 2>&1 || die "npm not found: install nodejs and npm (apt) for the SARIF Multitool"
  local t tmp
  t=$(now)
  log "sarif-multitool $SARIF_MULTITOOL_VERSION: npm install @microsoft/sarif-multitool (usually under 1 min) ..."
  mkdir -p "$TOOLS_CACHE"
  tmp=$(mktemp -d "$TOOLS_CACHE/.sarif-multitool.XXXXXX")
  if ! (cd "$tmp" && with_progress sarif-multitool npm install --no-audit --no-fund --loglevel=error \
    --prefix "$tmp" "@microsoft/sarif-multitool@$SARIF_MULTITOOL_VERSION" >/dev/null); then
    rm -rf "$tmp"
    die "sarif-multitool: npm install @microsoft/sarif-multitool@$SARIF_MULTITOOL_VERSION failed"
  fi
  rm -rf "$SARIF_MULTITOOL_DIR"
  mv "$tmp" "$SARIF_MULTITOOL_DIR"
  sarif_multitool_ok || die "sarif-multitool: installed package does not report $SARIF_MULTITOOL_VERSION"
  log "sarif-multitool $SARIF_MULTITOOL_VERSION: installed ($(elapsed "$t"))"
}


# neovim drives the language server test with its built-in LSP client;
# node and npm run and install yaml-language-server (a machine that has
# them from elsewhere, as NodeSource's nodejs with its own npm, keeps them).
APT_PACKAGES=(runc busybox-static neovim)
command -v node >/dev/null 2>&1 || APT_PACKAGES+=(nodejs)
command -v npm >/dev/null 2>&1 || APT_PACKAGES+=(npm)

apt_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}
apt_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }

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

yamlls_version() {
  [[ -x $YAMLLS_BIN ]] || return 1
  node -p "require('$YAMLLS_DIR/node_modules/yaml-language-server/package.json').version" 2>/dev/null
}

# install_yamlls: yaml-language-server from npm into the tool cache, through
# a temporary directory renamed into place.
install_yamlls() {
  local t tmp
  if [[ $(yamlls_version || true) == "$YAMLLS_VERSION" ]]; then
    log "yaml-language-server $YAMLLS_VERSION: cached"
    return
  fi
  command -v npm >/dev/null 2>&1 || die "npm not found: apt-get install npm"
  t=$(now)
  log "yaml-language-server $YAMLLS_VERSION: installing with npm (usually under 1 min) ..."
  mkdir -p "$TOOLS_CACHE"
  tmp=$(mktemp -d "$TOOLS_CACHE/.yaml-language-server.XXXXXX")
  if ! npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error "yaml-language-server@$YAMLLS_VERSION" >"$tmp.log" 2>&1; then
    cat "$tmp.log" >&2
    rm -rf "$tmp" "$tmp.log"
    die "npm install yaml-language-server@$YAMLLS_VERSION failed"
  fi
  rm -rf "$YAMLLS_DIR" "$tmp.log"
  mv "$tmp" "$YAMLLS_DIR"
  [[ $(yamlls_version || true) == "$YAMLLS_VERSION" ]] || die "yaml-language-server did not install in $YAMLLS_DIR"
  log "yaml-language-server $YAMLLS_VERSION: installed ($(elapsed "$t"))"
}

# The whole install. Go tools build one after another: on 2 cores parallel
# builds only compete for the same CPUs and memory.
install_all() {
  local t entry missing=0
  t=$(now)
  command -v go >/dev/null 2>&1 || die "go not found in PATH"
  log "tool cache: $TOOLS_CACHE"
  bk_version_ok || missing=$((missing + 1))
  for entry in "${GO_TOOLS[@]}"; do
    IFS='|' read -r name module _ bin _ <<<"$entry"
    [[ $(go_tool_version "$bin" "$module" || true) == "$(version_of "$name")" ]] || missing=$((missing + 1))
  done
  if ((missing > 0)); then
    log "$missing tool(s) to build; a cold install of everything takes about 7 min on an idle 2-core machine, up to 25 under load (progress every ${PROGRESS_EVERY}s)"
  fi
  install_apt
  install_yamlls
  install_buildkit
  for entry in "${GO_TOOLS[@]}"; do
    install_go_tool "$entry"
  done
  install_sarif_multitool
  log "install: done ($(elapsed "$t"))"
}

# print_tool_status: one line per tool, for `status`
print_tool_status() {
  local entry name module bin v pkg
  for pkg in "${APT_PACKAGES[@]}"; do
    if apt_installed "$pkg"; then v=$(apt_version "$pkg"); else v="missing"; fi
    printf '  %-17s %s\n' "$pkg" "$v"
  done
  printf '  %-17s %s (pinned %s) %s\n' yaml-language-server "$(yamlls_version || echo missing)" "$YAMLLS_VERSION" "$YAMLLS_BIN"
  for b in buildkitd buildctl; do
    if [[ -x $BK_DIR/$b ]]; then v=$("$BK_DIR/$b" --version 2>/dev/null || echo "unknown"); else v="missing"; fi
    printf '  %-17s %s (pinned %s)\n' "$b" "$v" "$BK_VERSION"
  done
  for entry in "${GO_TOOLS[@]}"; do
    IFS='|' read -r name module _ bin _ <<<"$entry"
    v=$(go_tool_version "$bin" "$module" || true)
    printf '  %-17s %s (pinned %s) %s\n' "$name" "${v:-missing}" "$(version_of "$name")" "$bin"
  done
  if sarif_multitool_ok; then v=$SARIF_MULTITOOL_VERSION; else v=missing; fi
  printf '  %-17s %s (pinned %s) %s\n' sarif-multitool "$v" "$SARIF_MULTITOOL_VERSION" "$SARIF_MULTITOOL_BIN"
}

# tool_env: the test variables naming the release and SARIF tools
tool_env() {
  printf 'export KITSMITH_TEST_GORELEASER=%q\n' "$GORELEASER_BIN"
  printf 'export KITSMITH_TEST_SYFT=%q\n' "$SYFT_BIN"
  printf 'export KITSMITH_TEST_SARIF_MULTITOOL=%q\n' "$SARIF_MULTITOOL_BIN"
}
