#!/usr/bin/env bash
# age payload decryption: `corpus-bench age-decrypt` streams a 1 GiB age file (made once by our
# encryptor, cached under .bench/age-decrypt) through AgeFileDecryptor into a sink that drops the
# plaintext, against `age -d` (Debian's 1.1.1) on the same file to /dev/null and
# `openssl speed -evp chacha20-poly1305` at 16 KiB blocks (goal: at least age's speed); then
# `corpus-bench install-encrypted`: `corpus install` of the 1 GiB bundle of bench-install.sh
# published encrypted (key from `corpusd serve --key-store`) against the same bundle in the clear,
# alternating, best of 3 (goal: encrypted <= 1.15 x clear). The encrypted install decrypts the
# payload twice, once on a thread of its own while it downloads (the plaintext's hash) and once
# as it extracts, with no pass of its own in between (docs/client.md "Encrypted payloads"); on a
# loaded machine the second thread competes for the cores, so read the ratio beside the load.
# Both print the load first.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
products="$(scripts/release-products.sh corpus-bench corpus corpusd)"
bin="$products/corpus-bench"

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

"$bin" install-encrypted --work .bench/install --rounds 3 --bin "$products"
