#!/usr/bin/python3
"""The machine's single-precision matrix-multiply rate, measured with NumPy: the peer that
the sentence encoders' GFLOP/s is divided by in scripts/bench-encoders.sh.

Run with Debian's /usr/bin/python3 (python3-numpy), with OPENBLAS_CORETYPE set to the core the
encoder's loader picks (scripts/bench-encoders.sh), so both run the same kernels.
Prints one JSON object: {"gflops": median rate, "n": size, "blas": which BLAS and kernel}.
"""
import ctypes
import json
import sys
import time

import numpy as np


def blas_description():
    try:
        import threadpoolctl  # optional; Debian's python3-threadpoolctl

        infos = [i for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
        if infos:
            i = infos[0]
            return f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')} x{i.get('num_threads')}"
    except ImportError:
        pass
    # NumPy here links libblas.so.3, which Debian points at OpenBLAS: ask the loaded library.
    try:
        lib = ctypes.CDLL("libopenblas.so.0")
        lib.openblas_get_corename.restype = ctypes.c_char_p
        lib.openblas_get_config.restype = ctypes.c_char_p
        return f"{lib.openblas_get_config().decode()} core {lib.openblas_get_corename().decode()} x{lib.openblas_get_num_threads()}"
    except OSError:
        return "unknown BLAS"


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    c = np.empty((n, n), dtype=np.float32)
    for _ in range(3):
        np.matmul(a, b, out=c)
    rates = []
    deadline = time.perf_counter() + 3.0
    while len(rates) < 10 or (time.perf_counter() < deadline and len(rates) < 200):
        t = time.perf_counter()
        np.matmul(a, b, out=c)
        rates.append(2.0 * n * n * n / (time.perf_counter() - t) / 1e9)
    rates.sort()
    print(json.dumps({"gflops": round(rates[len(rates) // 2], 2), "best_gflops": round(rates[-1], 2),
                      "n": n, "runs": len(rates), "blas": blas_description()}))


if __name__ == "__main__":
    main()
