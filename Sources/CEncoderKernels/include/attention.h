/* One attention head over one sequence, fused: softmax(Q·Kᵀ·scale)·V. See attention.c. */
#ifndef CORPUS_ATTENTION_H
#define CORPUS_ATTENTION_H

/* Floats of scratch corpus_attention_head_avx512 needs for n tokens and a head dh wide. */
long corpus_attention_scratch_floats(long n, long dh);

#if defined(__x86_64__)
/* out[i · ldout + c] = Σⱼ softmaxⱼ(scale · Σ_d q[i · ld + d] · k[j · ld + d]) · v[j · ld + c]
 * for i, j < n and c < dh: the head's Q, K and V are n rows of dh floats, rows `ld` apart (the
 * columns of one head in the packed QKV output). `scratch` holds corpus_attention_scratch_floats
 * floats. The caller checks the CPU has AVX-512F. */
void corpus_attention_head_avx512(long n, long dh, const float *q, const float *k, const float *v, long ld,
                                  float scale, float *out, long ldout, float *scratch);
#endif

#endif
