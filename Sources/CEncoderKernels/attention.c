/* Attention for one head of one sequence in one pass, instead of two sgemm calls and a softmax
 * per head: at 384 wide a head is 32 floats, so each of those sgemm calls multiplied 128 × 128 × 32
 * and spent as long copying its operands into packed panels and returning as multiplying. Here,
 * six query rows at a time: their scores against every key (K transposed once per head, so a
 * query value broadcast meets sixteen keys per instruction), their softmax, and their context
 * rows, all in the first-level cache. Called only on a CPU whose flags include AVX-512F
 * (EncoderSIMD.swift). */
#include "attention.h"

/* Keys are padded to a multiple of 64 (four vectors), so the score loop never takes a short path;
 * the padding keys score 0 and are masked out of the softmax. */
static long padded_keys(long n) { return (n + 63) / 64 * 64; }

/* V's rows packed, each padded to whole vectors. */
static long padded_width(long dh) { return (dh + 15) / 16 * 16; }

/* Query rows a block: six rows by four vectors keep 24 sums in registers, enough independent
 * multiply-adds to cover their latency on both FMA ports (four rows left the context loop, at a
 * 32-wide head, with eight). */
#define ROWS 6

/* Kᵀ (dh rows of the padded key count), V packed, and a block's rows of scores. */
long corpus_attention_scratch_floats(long n, long dh) { return (dh + ROWS) * padded_keys(n) + n * padded_width(dh); }

#if defined(__x86_64__)
#include "vector_exp.h"

/* out rows = p rows · V for the columns [c0, c0 + 16·NV), scaled by each row's 1/Σ. */
#define CONTEXT_BLOCK(NV)                                                                          \
__attribute__((target("avx512f"))) static void context_##NV(                                     \
    long n, const float *p, long np, const float *v, long ld, long c0, long dh,                   \
    const float *inv, long rows, float *out, long ldout) {                                        \
    __mmask16 m[NV];                                                                               \
    for (int c = 0; c < NV; c++) {                                                                 \
        long left = dh - c0 - 16 * c;                                                              \
        m[c] = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1);                     \
    }                                                                                              \
    __m512 acc[ROWS][NV];                                                                          \
    for (int r = 0; r < ROWS; r++)                                                                 \
        for (int c = 0; c < NV; c++) acc[r][c] = _mm512_setzero_ps();                              \
    for (long j = 0; j < n; j++) {                                                                 \
        __m512 b[NV];                                                                              \
        for (int c = 0; c < NV; c++) b[c] = _mm512_maskz_loadu_ps(m[c], v + j * ld + c0 + 16 * c); \
        for (int r = 0; r < ROWS; r++) {                                                           \
            __m512 a = _mm512_set1_ps(p[r * np + j]);                                              \
            for (int c = 0; c < NV; c++) acc[r][c] = _mm512_fmadd_ps(a, b[c], acc[r][c]);          \
        }                                                                                          \
    }                                                                                              \
    for (long r = 0; r < rows; r++)                                                                \
        for (int c = 0; c < NV; c++)                                                               \
            _mm512_mask_storeu_ps(out + r * ldout + c0 + 16 * c, m[c],                             \
                                  _mm512_mul_ps(acc[r][c], _mm512_set1_ps(inv[r])));               \
}

CONTEXT_BLOCK(1) CONTEXT_BLOCK(2) CONTEXT_BLOCK(3) CONTEXT_BLOCK(4)

__attribute__((target("avx512f")))
void corpus_attention_head_avx512(long n, long dh, const float *q, const float *k, const float *v, long ld,
                                  float scale, float *out, long ldout, float *scratch) {
    long np = padded_keys(n);
    long dp = padded_width(dh);
    float *kt = scratch, *s = scratch + dh * np, *vp = s + ROWS * np;
    /* Kᵀ sixteen keys at a time, gathered (a scalar copy of the n × dh values took a fifth of the
     * head's time); the padding keys are zeros. */
    __m512i keys = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                      _mm512_set1_epi32((int)ld));
    for (long j0 = 0; j0 < np; j0 += 16) {
        __mmask16 m = n - j0 >= 16 ? (__mmask16)0xFFFF : n > j0 ? (__mmask16)((1u << (n - j0)) - 1) : 0;
        for (long d = 0; d < dh; d++)
            _mm512_storeu_ps(kt + d * np + j0, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, keys, k + j0 * ld + d, 4));
    }
    /* V's rows copied next to each other: in the packed QKV they are 3 × hidden floats apart, a
     * stride that maps them all to a few sets of the first-level cache, which the context loop,
     * sweeping every row for each block of query rows, then missed on. */
    for (long j = 0; j < n; j++)
        for (long c = 0; c < dh; c += 16) {
            __mmask16 m = dh - c >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (dh - c)) - 1);
            _mm512_storeu_ps(vp + j * dp + c, _mm512_maskz_loadu_ps(m, v + j * ld + c));
        }
    __m512 vscale = _mm512_set1_ps(scale);
    for (long r0 = 0; r0 < n; r0 += ROWS) {
        long rows = n - r0 < ROWS ? n - r0 : ROWS;
        /* The next head's Q, K and V are the dh floats after this head's in the same rows. Those rows
         * are 3 × hidden floats apart, each on its own page, so the hardware prefetchers do not
         * follow them, and the K gather and V copy above waited on every row (a seventh of a head's
         * time at 384 wide, the packed QKV being larger than the second-level cache). Asked for
         * here, a block of rows at a time, they arrive while this head computes. After the last
         * head these addresses are other columns of the same rows, or past the buffer, which a
         * prefetch may name: it never faults. */
        for (long r = r0; r < r0 + rows; r++)
            for (long c = 0; c < dh + 15; c += 16) {
                long at = r * ld + dh + (c < dh ? c : dh - 1); /* the last float too: a slice may end on a third line */
                _mm_prefetch((const char *)(q + at), _MM_HINT_T1);
                _mm_prefetch((const char *)(k + at), _MM_HINT_T1);
                _mm_prefetch((const char *)(v + at), _MM_HINT_T1);
            }
        /* A last block of fewer rows repeats its first row and keeps only its own results. */
        const float *qr[ROWS];
        for (int r = 0; r < ROWS; r++) qr[r] = q + (r0 + (r < rows ? r : 0)) * ld;

        /* Scores: six rows by 64 keys, 24 sums in registers across the head's width. */
        for (long c0 = 0; c0 < np; c0 += 64) {
            __m512 acc[ROWS][4];
            for (int r = 0; r < ROWS; r++)
                for (int c = 0; c < 4; c++) acc[r][c] = _mm512_setzero_ps();
            for (long d = 0; d < dh; d++) {
                const float *kd = kt + d * np + c0;
                __m512 b0 = _mm512_loadu_ps(kd), b1 = _mm512_loadu_ps(kd + 16);
                __m512 b2 = _mm512_loadu_ps(kd + 32), b3 = _mm512_loadu_ps(kd + 48);
                for (int r = 0; r < ROWS; r++) {
                    __m512 a = _mm512_set1_ps(qr[r][d]);
                    acc[r][0] = _mm512_fmadd_ps(a, b0, acc[r][0]);
                    acc[r][1] = _mm512_fmadd_ps(a, b1, acc[r][1]);
                    acc[r][2] = _mm512_fmadd_ps(a, b2, acc[r][2]);
                    acc[r][3] = _mm512_fmadd_ps(a, b3, acc[r][3]);
                }
            }
            for (int r = 0; r < ROWS; r++)
                for (int c = 0; c < 4; c++) _mm512_storeu_ps(s + r * np + c0 + 16 * c, _mm512_mul_ps(acc[r][c], vscale));
        }

        /* Softmax numerators in place; the division by their sum is left to the context rows. */
        float inv[ROWS];
        for (int r = 0; r < ROWS; r++) {
            float *row = s + r * np;
            __m512 mx = _mm512_set1_ps(-__builtin_inff());
            for (long j = 0; j < n; j += 16) {
                __mmask16 m = n - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - j)) - 1);
                mx = _mm512_max_ps(mx, _mm512_mask_loadu_ps(mx, m, row + j));
            }
            __m512 vmax = _mm512_set1_ps(_mm512_reduce_max_ps(mx));
            __m512 sum = _mm512_setzero_ps();
            for (long j = 0; j < n; j += 16) {
                __mmask16 m = n - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - j)) - 1);
                __m512 e = _mm512_maskz_mov_ps(m, corpus_exp512(_mm512_sub_ps(_mm512_loadu_ps(row + j), vmax)));
                _mm512_storeu_ps(row + j, e);
                sum = _mm512_add_ps(sum, e);
            }
            inv[r] = 1.0f / _mm512_reduce_add_ps(sum);
        }

        float *o = out + r0 * ldout;
        for (long c0 = 0; c0 < dh; c0 += 64) {
            long vectors = (dh - c0 + 15) / 16;
            switch (vectors > 4 ? 4 : vectors) {
            case 4: context_4(n, s, np, vp, dp, c0, dh, inv, rows, o, ldout); break;
            case 3: context_3(n, s, np, vp, dp, c0, dh, inv, rows, o, ldout); break;
            case 2: context_2(n, s, np, vp, dp, c0, dh, inv, rows, o, ldout); break;
            default: context_1(n, s, np, vp, dp, c0, dh, inv, rows, o, ldout); break;
            }
        }
    }
}
#endif
