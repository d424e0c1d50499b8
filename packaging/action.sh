#!/usr/bin/env bash
# The GitHub Action's steps (action.yml), also runnable anywhere:
#   action.sh install   puts crd-studio on the PATH: $CRD_STUDIO if set, else one already on
#                       the PATH, else the release's static binary for this machine (checked
#                       against the release's SHA256SUMS), else `cargo install` from this source
#   action.sh run       runs crd-studio with the INPUT_* variables (see action.yml)
# GITHUB_PATH and GITHUB_OUTPUT are GitHub's files; elsewhere they may be unset.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"

say() { echo "crd-studio action: $*" >&2; }

find_binary() {
  if [[ -n "${CRD_STUDIO:-}" ]]; then
    echo "$CRD_STUDIO"
  elif command -v crd-studio >/dev/null 2>&1; then
    command -v crd-studio
  elif [[ -x "$tmp/crd-studio/bin/crd-studio" ]]; then
    echo "$tmp/crd-studio/bin/crd-studio"
  fi
}

triple() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo x86_64-unknown-linux-musl ;;
    Linux-aarch64 | Linux-arm64) echo aarch64-unknown-linux-musl ;;
    *) echo "" ;;
  esac
}

install() {
  local bin
  bin="$(find_binary)"
  if [[ -z "$bin" ]]; then
    local t ref dir
    t="$(triple)"
    ref="${INPUT_VERSION:-${ACTION_REF:-}}"
    dir="$tmp/crd-studio/bin"
    mkdir -p "$dir"
    if [[ -n "$t" && -n "$ref" && -n "${ACTION_REPOSITORY:-}" ]]; then
      local base="https://github.com/$ACTION_REPOSITORY/releases/download/$ref"
      if curl -fsSL -o "$dir/crd-studio-$t" "$base/crd-studio-$t" &&
        curl -fsSL -o "$dir/SHA256SUMS" "$base/SHA256SUMS" &&
        (cd "$dir" && grep " crd-studio-$t\$" SHA256SUMS | sha256sum -c - >&2); then
        mv "$dir/crd-studio-$t" "$dir/crd-studio"
        chmod +x "$dir/crd-studio"
        bin="$dir/crd-studio"
      else
        say "no release binary for $t at $ref: building from source"
      fi
    fi
    if [[ -z "$bin" ]]; then
      cargo install --locked --profile cli --path "$here/crates/cli" --root "$tmp/crd-studio" >&2
      bin="$tmp/crd-studio/bin/crd-studio"
    fi
  fi
  "$bin" --version >&2
  if [[ -n "${GITHUB_PATH:-}" ]]; then
    dirname "$bin" >>"$GITHUB_PATH"
  fi
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    echo "bin=$bin" >>"$GITHUB_OUTPUT"
  fi
  echo "$bin"
}

# Splits a list input (spaces or new lines) into the array named $1.
split() {
  local -n into="$1"
  into=()
  local word
  for word in ${2:-}; do
    into+=("$word")
  done
}

run() {
  local bin command
  bin="$(find_binary)"
  [[ -n "$bin" ]] || bin="$(install)"
  command="${INPUT_COMMAND:-check}"
  local -a paths crds extra args
  split paths "${INPUT_PATHS:-.}"
  split crds "${INPUT_CRDS:-}"
  split extra "${INPUT_ARGS:-}"
  args=("$command" "${paths[@]}")
  if [[ "$command" == check ]]; then
    local p
    for p in "${crds[@]}"; do args+=(--crds "$p"); done
    if [[ -n "${INPUT_BASE_REF:-}" ]]; then
      # The base revision's tree, for the update path of the CRDs and the objects.
      local old="$tmp/crd-studio-base"
      rm -rf "$old" && mkdir -p "$old"
      git archive --format=tar "$INPUT_BASE_REF" | tar -x -C "$old"
      for p in "${paths[@]}" "${crds[@]}"; do
        if [[ -e "$old/$p" ]]; then
          args+=(--old-crds "$old/$p" --old "$old/$p")
        fi
      done
      [[ -z "${INPUT_FAIL_ON:-}" ]] || args+=(--fail-on "$INPUT_FAIL_ON")
    fi
    [[ -z "${INPUT_KUBERNETES_VERSION:-}" ]] || args+=(--kubernetes-version "$INPUT_KUBERNETES_VERSION")
    [[ "${INPUT_IGNORE_MISSING_CRDS:-false}" != true ]] || args+=(--ignore-missing-crds)
    [[ -z "${INPUT_SHARD:-}" ]] || args+=(--shard "$INPUT_SHARD")
    [[ -z "${INPUT_FORMAT:-}" ]] || args+=(--format "$INPUT_FORMAT")
  fi
  args+=("${extra[@]}")
  say "$bin ${args[*]}"
  local code=0
  if [[ -n "${INPUT_OUTPUT_FILE:-}" ]]; then
    "$bin" "${args[@]}" >"$INPUT_OUTPUT_FILE" || code=$?
    cat "$INPUT_OUTPUT_FILE"
  else
    "$bin" "${args[@]}" || code=$?
  fi
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    echo "exit-code=$code" >>"$GITHUB_OUTPUT"
  fi
  return "$code"
}

case "${1:-}" in
  install) install >/dev/null ;;
  run) run ;;
  *)
    echo "usage: action.sh install|run" >&2
    exit 2
    ;;
esac
