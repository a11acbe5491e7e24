/* GELU (erf form, BERT's hidden_act "gelu") in place, vectorized. See gelu.c. */
#ifndef CORPUS_GELU_H
#define CORPUS_GELU_H

#if defined(__x86_64__)
/* x[i] = x[i] · ½ · (1 + erf(x[i] / √2)) for i < count. The caller checks the CPU has AVX-512F. */
void corpus_gelu_avx512(float *x, long count);
#endif

#endif
