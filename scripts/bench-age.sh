#!/usr/bin/env bash
# age payload decryption: `corpus-bench age-decrypt` streams a 1 GiB age file (made once by our
# encryptor, cached under .bench/age-decrypt) through AgeFileDecryptor into a sink that drops the
# plaintext, against `age -d` (Debian's 1.1.1) on the same file to /dev/null and
# `openssl speed -evp chacha20-poly1305` at 16 KiB blocks. Information for issue 33's install
# ratio (an encrypted install within 1.15 x a plain one); the goal here: at least age's speed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

scripts/release-build.sh --product corpus-bench >/dev/null
bin="$(scripts/release-build.sh --show-bin-path)/corpus-bench"

# The first run makes the file; its figures include cold-cache effects, so run again.
"$bin" age-decrypt --cache .bench/age-decrypt --rounds 1 >/dev/null
result="$("$bin" age-decrypt --cache .bench/age-decrypt --rounds 3)"
echo "$result"
get() { echo "$result" | sed -n "s/^$1=//p"; }
bytes=$(get plaintext_bytes)

age_seconds=()
for _ in 1 2 3; do
  start=$(date +%s.%N)
  age -d -i "$(get identity_file)" -o /dev/null "$(get age_file)"
  end=$(date +%s.%N)
  age_seconds+=("$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')")
done
age_median=$(printf '%s\n' "${age_seconds[@]}" | sort -g | sed -n 2p)
age_mb_s=$(awk -v b="$bytes" -v s="$age_median" 'BEGIN { printf "%.1f", b / s / 1e6 }')
echo "age_mb_s=$age_mb_s"

# openssl speed prints "ChaCha20-Poly1305 <1 figure per block size in kB/s>"; 16384 is the last.
speed="$(openssl speed -evp chacha20-poly1305 -seconds 3 2>/dev/null | grep -i '^chacha20-poly1305' | tail -1)"
echo "$speed"
openssl_mb_s=$(echo "$speed" | awk '{ v = $NF; sub(/k$/, "", v); printf "%.1f", v * 1000 / 1e6 }')
echo "openssl_mb_s=$openssl_mb_s"

awk -v d="$(get decrypt_mb_s)" -v a="$age_mb_s" -v o="$openssl_mb_s" -v r="$(get peak_rss_mib)" 'BEGIN {
  printf "RESULT\tage decrypt 1 GiB (AgeFileDecryptor) vs age -d\t%.0f\tMB/s\t%.0f\t%.2f\t>=1.0x\n", d, a, d / a
  printf "RESULT\tage decrypt 1 GiB vs openssl speed chacha20-poly1305\t%.0f\tMB/s\t%.0f\t%.2f\t-\n", d, o, d / o
  printf "RESULT\tage decrypt peak RSS\t%.1f\tMiB\t-\t-\t<64\n", r
}'
