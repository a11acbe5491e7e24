/* A few rows of x times the whole of w, reading w once: for each block of four weight rows (four
 * output features), every group of R input rows keeps 4·R running sums in registers across the
 * input features, so each weight vector loaded from memory serves R rows. With a query's 10–30
 * tokens the product is bound by reading the weights, and this reads each of them once, without
 * the copy into packed panels a general sgemm makes on every call.
 *
 * Compiled for the baseline x86-64 target; the kernels carry their own `target` attribute, and
 * FewRowProduct.swift calls one only on a CPU whose flags (as Linux reports them, so only features
 * the kernel enabled) include it. */
#include "few_row_product.h"

#if defined(__x86_64__)
#include <immintrin.h>

/* ---- AVX-512: 16 floats a vector, 32 registers: R ≤ 6 rows × 4 outputs = 24 sums. ---- */

#define AVX512_BLOCK(R)                                                                            \
__attribute__((target("avx512f"))) static void avx512_block_##R(                                 \
    long in, const float *x, long ldx, const float *w0, const float *w1, const float *w2,         \
    const float *w3, long outs, float *y, long ldy) {                                             \
    __m512 acc[R][4];                                                                              \
    for (int r = 0; r < R; r++)                                                                    \
        for (int j = 0; j < 4; j++) acc[r][j] = _mm512_setzero_ps();                               \
    for (long i = 0; i < in; i += 16) {                                                            \
        long left = in - i;                                                                        \
        __mmask16 m = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1);             \
        __m512 b0 = _mm512_maskz_loadu_ps(m, w0 + i), b1 = _mm512_maskz_loadu_ps(m, w1 + i);      \
        __m512 b2 = _mm512_maskz_loadu_ps(m, w2 + i), b3 = _mm512_maskz_loadu_ps(m, w3 + i);      \
        for (int r = 0; r < R; r++) {                                                              \
            __m512 a = _mm512_maskz_loadu_ps(m, x + r * ldx + i);                                  \
            acc[r][0] = _mm512_fmadd_ps(a, b0, acc[r][0]);                                         \
            acc[r][1] = _mm512_fmadd_ps(a, b1, acc[r][1]);                                         \
            acc[r][2] = _mm512_fmadd_ps(a, b2, acc[r][2]);                                         \
            acc[r][3] = _mm512_fmadd_ps(a, b3, acc[r][3]);                                         \
        }                                                                                          \
    }                                                                                              \
    for (int r = 0; r < R; r++)                                                                    \
        for (long j = 0; j < outs; j++) y[r * ldy + j] += _mm512_reduce_add_ps(acc[r][j]);         \
}

AVX512_BLOCK(1) AVX512_BLOCK(2) AVX512_BLOCK(3) AVX512_BLOCK(4) AVX512_BLOCK(5) AVX512_BLOCK(6)

__attribute__((target("avx512f")))
void corpus_few_rows_avx512(long rows, long out, long in, const float *x, long ldx, const float *w,
                            float *y, long ldy) {
    for (long o = 0; o < out; o += 4) {
        /* A last block of fewer than four outputs repeats the first row and keeps only its own sums. */
        long outs = out - o < 4 ? out - o : 4;
        const float *w0 = w + o * in;
        const float *w1 = outs > 1 ? w0 + in : w0, *w2 = outs > 2 ? w0 + 2 * in : w0, *w3 = outs > 3 ? w0 + 3 * in : w0;
        for (long r = 0; r < rows; r += 6) {
            const float *xr = x + r * ldx;
            float *yr = y + r * ldy + o;
            switch (rows - r < 6 ? rows - r : 6) {
            case 6: avx512_block_6(in, xr, ldx, w0, w1, w2, w3, outs, yr, ldy); break;
            case 5: avx512_block_5(in, xr, ldx, w0, w1, w2, w3, outs, yr, ldy); break;
            case 4: avx512_block_4(in, xr, ldx, w0, w1, w2, w3, outs, yr, ldy); break;
            case 3: avx512_block_3(in, xr, ldx, w0, w1, w2, w3, outs, yr, ldy); break;
            case 2: avx512_block_2(in, xr, ldx, w0, w1, w2, w3, outs, yr, ldy); break;
            default: avx512_block_1(in, xr, ldx, w0, w1, w2, w3, outs, yr, ldy); break;
            }
        }
    }
}

/* ---- AVX2 + FMA: 8 floats a vector, 16 registers: R ≤ 2 rows × 4 outputs = 8 sums. ---- */

__attribute__((target("avx2,fma"))) static inline float avx2_sum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

__attribute__((target("avx2,fma"))) static inline __m256 avx2_load(const float *p, long left, __m256i mask) {
    return left >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, mask);
}

#define AVX2_BLOCK(R)                                                                              \
__attribute__((target("avx2,fma"))) static void avx2_block_##R(                                  \
    long in, const float *x, long ldx, const float *w0, const float *w1, const float *w2,         \
    const float *w3, long outs, float *y, long ldy) {                                             \
    __m256 acc[R][4];                                                                              \
    for (int r = 0; r < R; r++)                                                                    \
        for (int j = 0; j < 4; j++) acc[r][j] = _mm256_setzero_ps();                               \
    for (long i = 0; i < in; i += 8) {                                                             \
        long left = in - i;                                                                        \
        __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(left < 8 ? left : 8)),         \
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));             \
        __m256 b0 = avx2_load(w0 + i, left, mask), b1 = avx2_load(w1 + i, left, mask);            \
        __m256 b2 = avx2_load(w2 + i, left, mask), b3 = avx2_load(w3 + i, left, mask);            \
        for (int r = 0; r < R; r++) {                                                              \
            __m256 a = avx2_load(x + r * ldx + i, left, mask);                                     \
            acc[r][0] = _mm256_fmadd_ps(a, b0, acc[r][0]);                                         \
            acc[r][1] = _mm256_fmadd_ps(a, b1, acc[r][1]);                                         \
            acc[r][2] = _mm256_fmadd_ps(a, b2, acc[r][2]);                                         \
            acc[r][3] = _mm256_fmadd_ps(a, b3, acc[r][3]);                                         \
        }                                                                                          \
    }                                                                                              \
    for (int r = 0; r < R; r++)                                                                    \
        for (long j = 0; j < outs; j++) y[r * ldy + j] += avx2_sum(acc[r][j]);                     \
}

AVX2_BLOCK(1) AVX2_BLOCK(2)

__attribute__((target("avx2,fma")))
void corpus_few_rows_avx2(long rows, long out, long in, const float *x, long ldx, const float *w,
                          float *y, long ldy) {
    for (long o = 0; o < out; o += 4) {
        long outs = out - o < 4 ? out - o : 4;
        const float *w0 = w + o * in;
        const float *w1 = outs > 1 ? w0 + in : w0, *w2 = outs > 2 ? w0 + 2 * in : w0, *w3 = outs > 3 ? w0 + 3 * in : w0;
        for (long r = 0; r < rows; r += 2) {
            const float *xr = x + r * ldx;
            float *yr = y + r * ldy + o;
            if (rows - r >= 2) avx2_block_2(in, xr, ldx, w0, w1, w2, w3, outs, yr, ldy);
            else avx2_block_1(in, xr, ldx, w0, w1, w2, w3, outs, yr, ldy);
        }
    }
}
#endif
