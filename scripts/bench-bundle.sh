#!/usr/bin/env bash
# Bundle streaming benchmark: BundleReader.verifyAll / extract on a bundle with a 1 GiB stored
# vectors.bin, against `openssl dgst -sha256` of the same 1 GiB in the same run.
# Goal: verify throughput >= 0.8 x openssl, peak RSS < 64 MiB.
# Then the zlib zip reader against libzip on the same bundle (corpus-bench zip-readers: the two
# alternated over 5 rounds, medians). Goal: zlib's extract throughput >= 0.9 x libzip's.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

swift build -c release --product corpus-bench >/dev/null
bin="$(swift build -c release --show-bin-path)/corpus-bench"
out=.bench/bundle-stream/extracted
mkdir -p .bench/bundle-stream

# First run builds the cached bundle; its figures include cold-cache effects, so run again.
"$bin" bundle-stream --cache .bench/bundle-stream >/dev/null
result="$("$bin" bundle-stream --cache .bench/bundle-stream --extract-to "$out")"
echo "$result"

get() { echo "$result" | sed -n "s/^$1=//p"; }
bytes=$(get vectors_bytes)
start=$(date +%s.%N)
openssl dgst -sha256 "$out/vectors.bin" >/dev/null
end=$(date +%s.%N)
openssl_mb_s=$(awk -v b="$bytes" -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", b / (e - s) / 1e6 }')
echo "openssl_mb_s=$openssl_mb_s"
awk -v v="$(get verify_mb_s)" -v o="$openssl_mb_s" 'BEGIN { printf "verify_vs_openssl=%.2f (goal >= 0.80)\n", v / o }'
awk -v v="$(get extract_mb_s)" -v o="$openssl_mb_s" 'BEGIN { printf "extract_vs_openssl=%.2f\n", v / o }'
printf 'peak_rss_mib=%s (goal < 64)\n' "$(get peak_rss_mib)"
# Machine-readable lines for scripts/bench.sh: RESULT name value unit peer ratio goal.
awk -v v="$(get verify_mb_s)" -v x="$(get extract_mb_s)" -v o="$openssl_mb_s" -v r="$(get peak_rss_mib)" 'BEGIN {
  printf "RESULT\tbundle verifyAll 1 GiB vs openssl dgst -sha256\t%.0f\tMB/s\t%.0f\t%.2f\t>=0.8x\n", v, o, v / o
  printf "RESULT\tbundle extract 1 GiB (fsynced) vs openssl dgst\t%.0f\tMB/s\t%.0f\t%.2f\t-\n", x, o, x / o
  printf "RESULT\tbundle verify+extract peak RSS\t%.1f\tMiB\t-\t-\t<64\n", r
}'
rm -rf "$out"

readers="$("$bin" zip-readers --cache .bench/bundle-stream --extract-to "$out" --rounds 5)"
echo "$readers"
rget() { echo "$readers" | sed -n "s/^$1=//p"; }
awk -v z="$(rget zlib_extract_mb_s)" -v l="$(rget libzip_extract_mb_s)" -v zv="$(rget zlib_verify_mb_s)" -v lv="$(rget libzip_verify_mb_s)" 'BEGIN {
  printf "zlib_vs_libzip_extract=%.2f (goal >= 0.90)\n", z / l
  printf "zlib_vs_libzip_verify=%.2f\n", zv / lv
  printf "RESULT\tzlib reader extract 1 GiB (fsynced) vs libzip, median of 5\t%.0f\tMB/s\t%.0f\t%.2f\t>=0.9x\n", z, l, z / l
  printf "RESULT\tzlib reader verifyAll 1 GiB vs libzip, median of 5\t%.0f\tMB/s\t%.0f\t%.2f\t-\n", zv, lv, zv / lv
}'
rm -rf "$out"
