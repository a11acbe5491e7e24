/* e^x on 16 floats at a time, for the softmax of attention.c and the erf of gelu.c: the same
 * Cephes expf as EncoderKernels.exp on the Swift side (range reduction by ln 2, degree-6
 * polynomial, 2^n built in the exponent bits), relative error about 1e-7. A private header: each
 * file that includes it gets its own static copy, compiled under its caller's target attribute. */
#ifndef CORPUS_VECTOR_EXP_H
#define CORPUS_VECTOR_EXP_H
#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx512f"))) static inline __m512 corpus_exp512(__m512 x) {
    __m512 clamped = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.3f)), _mm512_set1_ps(88.3f));
    /* Adding 1.5·2²³ rounds to the nearest integer; the integer then sits in the low mantissa bits. */
    __m512 magic = _mm512_set1_ps(12582912.0f);
    __m512 shifted = _mm512_add_ps(_mm512_mul_ps(clamped, _mm512_set1_ps(1.44269504088896341f)), magic);
    __m512 n = _mm512_sub_ps(shifted, magic);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), clamped);
    r = _mm512_fmadd_ps(n, _mm512_set1_ps(2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    __m512 y = _mm512_add_ps(_mm512_fmadd_ps(_mm512_mul_ps(p, r), r, r), _mm512_set1_ps(1.0f));
    __m512i bits = _mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(_mm512_castps_si512(shifted),
                                                                       _mm512_set1_epi32(0x4B400000)),
                                                      _mm512_set1_epi32(127)), 23);
    return _mm512_mul_ps(y, _mm512_castsi512_ps(bits));
}

#endif
#endif
