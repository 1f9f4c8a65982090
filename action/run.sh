#!/usr/bin/env bash
# Runs kitsmith for the composite action (action.yml). Every input arrives in
# the environment and becomes whole arguments of kitsmith: nothing is ever
# evaluated as shell code (no eval, no command substitution of input text).
#
#   INPUT_COMMAND     the kitsmith command: lint, publish, verify, or any other
#                     (validate, check, ...); one word
#   INPUT_ARGS        more arguments, separated by whitespace (spaces, tabs,
#                     newlines); no quoting and no globbing: each word is one
#                     argument as written
#   INPUT_PATHS       kit paths, separated by whitespace; a word with * ? or [
#                     is a glob over the working directory (pathname
#                     expansion only), kept as written when nothing matches
#   lint:     INPUT_FORMAT, INPUT_FAIL_LEVEL, INPUT_SARIF_FILE
#   publish:  INPUT_TAG_TEMPLATE, INPUT_POLICY
#   verify:   INPUT_REFS (whitespace-separated; kitsmith verify runs once per
#             reference), INPUT_IDENTITY, INPUT_ISSUER, INPUT_POLICY
#   STDOUT_FILE       write kitsmith's standard output to this file
#   ALLOW_FINDINGS    "true": exit status 1 (findings) does not fail the step
#
# The step output exit-code is kitsmith's exit status (the highest, for
# several verify runs).
set -uo pipefail
set -f # no pathname expansion unless asked for (paths)

die() { echo "::error title=kitsmith action::$*" >&2; exit 2; }

split() { # split TEXT -> WORDS (array): whitespace-separated, no globbing
  local IFS=$' \t\n'
  # shellcheck disable=SC2206 # word splitting is the point; set -f is on
  WORDS=($1)
}

cmd=${INPUT_COMMAND:-}
[[ -z $cmd || $cmd =~ ^[a-z][a-z-]*$ ]] ||
  die "command: must be one kitsmith command such as lint, publish or verify (got '$cmd'); put further arguments in args"

# Typed inputs belong to one command each.
need() { # need INPUT_NAME input-name COMMAND...
  local var=$1 name=$2 c
  shift 2
  [[ -z ${!var:-} ]] && return 0
  for c in "$@"; do [[ $cmd == "$c" ]] && return 0; done
  die "input $name applies to command: $*, not '${cmd:-}'"
}
need INPUT_FORMAT format lint
need INPUT_FAIL_LEVEL fail-level lint
need INPUT_SARIF_FILE sarif-file lint
need INPUT_TAG_TEMPLATE tag-template publish
need INPUT_POLICY policy publish verify
need INPUT_REFS refs verify
need INPUT_IDENTITY identity verify
need INPUT_ISSUER issuer verify

split "${INPUT_ARGS:-}"
args=("${WORDS[@]}")
split "${INPUT_PATHS:-}"
paths=()
for w in "${WORDS[@]}"; do
  if [[ $w == *[*?[]* ]]; then
    shopt -s nullglob
    set +f
    # shellcheck disable=SC2206 # pathname expansion of one word
    m=($w)
    set -f
    shopt -u nullglob
    if ((${#m[@]} > 0)); then paths+=("${m[@]}"); else paths+=("$w"); fi
  else
    paths+=("$w")
  fi
done

flags=()
opt() { [[ -n ${2:-} ]] && flags+=("$1" "$2"); return 0; } # opt --flag VALUE
case $cmd in
  lint)
    opt --format "${INPUT_FORMAT:-}"
    opt --fail-level "${INPUT_FAIL_LEVEL:-}"
    opt --sarif-file "${INPUT_SARIF_FILE:-}"
    ;;
  publish)
    opt --tag-template "${INPUT_TAG_TEMPLATE:-}"
    opt --policy "${INPUT_POLICY:-}"
    ;;
  verify)
    opt --certificate-identity "${INPUT_IDENTITY:-}"
    opt --certificate-oidc-issuer "${INPUT_ISSUER:-}"
    opt --policy "${INPUT_POLICY:-}"
    ;;
esac

if [[ $cmd == verify && -n ${INPUT_REFS:-} ]]; then
  split "$INPUT_REFS"
  refs=("${WORDS[@]}")
else
  refs=("")
fi

rc=0
if [[ -n ${STDOUT_FILE:-} ]]; then : >"$STDOUT_FILE" || die "cannot write stdout-file $STDOUT_FILE"; fi
for ref in "${refs[@]}"; do
  argv=()
  [[ -n $cmd ]] && argv+=("$cmd")
  argv+=("${flags[@]}" "${args[@]}" "${paths[@]}")
  [[ -n $ref ]] && argv+=("$ref")
  ((${#argv[@]} > 0)) || die "nothing to run: set command (and args, paths or refs)"
  one=0
  if [[ -n ${STDOUT_FILE:-} ]]; then
    kitsmith "${argv[@]}" >>"$STDOUT_FILE" || one=$?
  else
    kitsmith "${argv[@]}" || one=$?
  fi
  ((one > rc)) && rc=$one
done
echo "exit-code=$rc" >>"${GITHUB_OUTPUT:-/dev/null}"
if [[ $rc -eq 1 && ${ALLOW_FINDINGS:-false} == true ]]; then
  exit 0
fi
exit "$rc"
