#!/usr/bin/python3
"""The peer for `corpus-bench engine`: brute-force top-10 in NumPy over the same vectors.

Loads .bench/engine/home/corpora/bench/synthetic/current/vectors.bin (docs/format.md, vector
sidecar), dequantizes the int8 rows to float32 (q * scale), and times `matrix @ query` plus a
top-10 selection for the queries corpus-bench wrote to queries.f32. Prints `key value` lines.
Run with Debian's /usr/bin/python3 (python3-numpy).
"""
import os
import struct
import sys
import time

import numpy as np


def load_vectors(path):
    with open(path, "rb") as f:
        header = f.read(64)
    magic, version, encoding, dim, _reserved, rows, matrix_offset, scales_offset = struct.unpack("<8sIIIIQQQ", header[:48])
    if magic != b"CSVECTOR" or version != 1:
        sys.exit(f"{path}: not a CSVECTOR v1 file")
    if encoding == 1:
        q = np.memmap(path, dtype=np.int8, mode="r", offset=matrix_offset, shape=(rows, dim))
        scales = np.memmap(path, dtype="<f4", mode="r", offset=scales_offset, shape=(rows,))
        return (q.astype(np.float32) * scales[:, None]).astype(np.float32)
    return np.array(np.memmap(path, dtype="<f4", mode="r", offset=matrix_offset, shape=(rows, dim)))


def main():
    bench = sys.argv[1] if len(sys.argv) > 1 else ".bench/engine"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    t = time.perf_counter()
    matrix = load_vectors(os.path.join(bench, "home/corpora/bench/synthetic/current/vectors.bin"))
    load_s = time.perf_counter() - t
    dim = matrix.shape[1]
    queries = np.fromfile(os.path.join(bench, "queries.f32"), dtype="<f4").reshape(-1, dim)[:count]
    matrix @ queries[0]  # warm-up: page in, let BLAS start its threads
    times = []
    for q in queries:
        t = time.perf_counter()
        scores = matrix @ q
        top = np.argpartition(scores, -10)[-10:]
        top = top[np.argsort(-scores[top])]
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    print(f"numpy.rows {matrix.shape[0]}")
    print(f"numpy.load_dequantize_s {load_s:.2f}")
    print(f"numpy.scan_p50_ms {times[len(times) // 2]:.2f}")
    print(f"numpy.scan_p95_ms {times[min(len(times) - 1, round((len(times) - 1) * 0.95))]:.2f}")


if __name__ == "__main__":
    main()
