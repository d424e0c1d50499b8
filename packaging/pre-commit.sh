#!/usr/bin/env bash
# The pre-commit hooks of .pre-commit-hooks.yaml:
#   pre-commit.sh check [ARGS...] FILES...  crd-studio check on the changed files (repository
#                                          mode: CRDs among them are compiled, objects matched)
#   pre-commit.sh diff [ARGS...] FILES...   each changed file holding a CRD against its
#                                          revision at the merge base with
#                                          $CRD_STUDIO_BASE (default: origin/HEAD, else main)
set -euo pipefail

hook_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

binary() {
  if [[ -n "${CRD_STUDIO:-}" ]]; then
    echo "$CRD_STUDIO"
  elif command -v crd-studio >/dev/null 2>&1; then
    command -v crd-studio
  else
    local built="$hook_repo/target/cli/crd-studio"
    if [[ ! -x "$built" ]]; then
      echo "crd-studio: not on PATH; building it once with cargo (a few minutes)" >&2
      cargo build --profile cli --locked -p crd-studio-cli --manifest-path "$hook_repo/Cargo.toml" >&2
    fi
    echo "$built"
  fi
}

mode="${1:-}"
shift || true
bin="$(binary)"
case "$mode" in
  check)
    # The hook's args (default --ignore-missing-crds), then the files pre-commit appends.
    exec "$bin" check "$@"
    ;;
  diff)
    base="${CRD_STUDIO_BASE:-}"
    if [[ -z "$base" ]]; then
      for candidate in origin/HEAD origin/main main origin/master master; do
        if git rev-parse --verify -q "$candidate" >/dev/null; then
          base="$candidate"
          break
        fi
      done
    fi
    if [[ -z "$base" ]]; then
      echo "crd-studio diff: no base branch found (set CRD_STUDIO_BASE)" >&2
      exit 2
    fi
    merge_base="$(git merge-base HEAD "$base")"
    opts=()
    files=()
    for a in "$@"; do
      if [[ "$a" == -* || ${#opts[@]} -gt 0 && "${opts[-1]}" == --fail-on ]]; then
        opts+=("$a")
      else
        files+=("$a")
      fi
    done
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    status=0
    for f in "${files[@]}"; do
      grep -q 'CustomResourceDefinition' "$f" || continue
      # A file new since the merge base has no previous revision.
      git cat-file -e "$merge_base:$f" 2>/dev/null || continue
      git show "$merge_base:$f" >"$tmp/old"
      echo "== $f (against $base at ${merge_base:0:12})"
      "$bin" diff "$tmp/old" "$f" "${opts[@]}" || status=$?
    done
    exit "$status"
    ;;
  *)
    echo "usage: pre-commit.sh check|diff [ARGS...] FILES..." >&2
    exit 2
    ;;
esac
