/* Residual add and LayerNorm, 16 floats at a time: three passes over a row that stays in the
 * first-level cache (sum, squared deviations, scale), where the Swift loop made four, one of them
 * into a scratch row. The optional bias row is the preceding product's: the encoder lets sgemm add
 * its product onto the residual rows and adds the bias here, which saves copying the bias into
 * every output row first and reading a separate residual matrix back. Called only on a CPU whose flags include AVX-512F (EncoderSIMD.swift). */
#include "layer_norm.h"

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx512f"))) static inline __mmask16 tail(long left) {
    return left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1);
}

__attribute__((target("avx512f")))
void corpus_add_layer_norm_avx512(const float *x, const float *residual, const float *bias, long rows, long width,
                                  const float *gamma, const float *beta, float eps, float *out) {
    for (long r = 0; r < rows; r++) {
        const float *xr = x + r * width, *rr = residual ? residual + r * width : 0;
        float *o = out + r * width;
        __m512 sum = _mm512_setzero_ps();
        for (long j = 0; j < width; j += 16) {
            __mmask16 m = tail(width - j);
            __m512 v = _mm512_maskz_loadu_ps(m, xr + j);
            if (rr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, rr + j));
            if (bias) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, bias + j));
            _mm512_mask_storeu_ps(o + j, m, v);
            sum = _mm512_add_ps(sum, v);
        }
        __m512 mean = _mm512_set1_ps(_mm512_reduce_add_ps(sum) / (float)width);
        __m512 squares = _mm512_setzero_ps();
        for (long j = 0; j < width; j += 16) {
            __mmask16 m = tail(width - j);
            __m512 d = _mm512_maskz_sub_ps(m, _mm512_maskz_loadu_ps(m, o + j), mean);
            squares = _mm512_fmadd_ps(d, d, squares);
        }
        float variance = _mm512_reduce_add_ps(squares) / (float)width;
        __m512 inv = _mm512_set1_ps(1.0f / __builtin_sqrtf(variance + eps));
        for (long j = 0; j < width; j += 16) {
            __mmask16 m = tail(width - j);
            __m512 d = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, o + j), mean), inv);
            __m512 y = _mm512_fmadd_ps(d, _mm512_maskz_loadu_ps(m, gamma + j), _mm512_maskz_loadu_ps(m, beta + j));
            _mm512_mask_storeu_ps(o + j, m, y);
        }
    }
}
#endif
