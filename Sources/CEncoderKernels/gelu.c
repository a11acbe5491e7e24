/* GELU with erf on 16 floats at a time: x · ½ · (1 + erf(x / √2)), erf by Abramowitz & Stegun
 * 7.1.26 as EncoderKernels.erf on the Swift side (absolute error below 1.5e-7). The Swift loop
 * compiles to scalar code (a division and a call-free exp per element, about 3 ns each), and at
 * 384 wide it took a tenth of a passage's time; here each element costs a few instructions.
 * Called only on a CPU whose flags include AVX-512F (EncoderSIMD.swift). */
#include "gelu.h"

#if defined(__x86_64__)
#include "vector_exp.h"

__attribute__((target("avx512f"))) static inline __m512 gelu16(__m512 v) {
    __m512 x = _mm512_mul_ps(v, _mm512_set1_ps(0.70710678118654752f));
    __m512 a = _mm512_abs_ps(x);
    /* t = 1 / (1 + p·a): the reciprocal estimate (14 bits) and one Newton step (about 28). */
    __m512 d = _mm512_fmadd_ps(a, _mm512_set1_ps(0.3275911f), _mm512_set1_ps(1.0f));
    __m512 t = _mm512_rcp14_ps(d);
    t = _mm512_mul_ps(t, _mm512_fnmadd_ps(d, t, _mm512_set1_ps(2.0f)));
    __m512 poly = _mm512_set1_ps(1.061405429f);
    poly = _mm512_fmadd_ps(poly, t, _mm512_set1_ps(-1.453152027f));
    poly = _mm512_fmadd_ps(poly, t, _mm512_set1_ps(1.421413741f));
    poly = _mm512_fmadd_ps(poly, t, _mm512_set1_ps(-0.284496736f));
    poly = _mm512_fmadd_ps(poly, t, _mm512_set1_ps(0.254829592f));
    poly = _mm512_mul_ps(poly, t);
    __m512 e = corpus_exp512(_mm512_sub_ps(_mm512_setzero_ps(), _mm512_mul_ps(a, a)));
    __m512 y = _mm512_fnmadd_ps(poly, e, _mm512_set1_ps(1.0f));
    /* erf is odd: the sign of x on |erf|. */
    __m512 sign = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u)));
    __m512 erf = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(y), _mm512_castps_si512(sign)));
    return _mm512_mul_ps(_mm512_mul_ps(v, _mm512_set1_ps(0.5f)), _mm512_add_ps(erf, _mm512_set1_ps(1.0f)));
}

__attribute__((target("avx512f")))
void corpus_gelu_avx512(float *x, long count) {
    long i = 0;
    for (; i + 16 <= count; i += 16) _mm512_storeu_ps(x + i, gelu16(_mm512_loadu_ps(x + i)));
    if (i < count) {
        __mmask16 m = (__mmask16)((1u << (count - i)) - 1);
        _mm512_mask_storeu_ps(x + i, m, gelu16(_mm512_maskz_loadu_ps(m, x + i)));
    }
}
#endif
