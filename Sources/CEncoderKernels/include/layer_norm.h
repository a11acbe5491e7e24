/* LayerNorm of each row of x + residual, vectorized. See layer_norm.c. */
#ifndef CORPUS_LAYER_NORM_H
#define CORPUS_LAYER_NORM_H

#if defined(__x86_64__)
/* out row = (v - mean) / sqrt(var + eps) · gamma + beta with v = x row + residual row + bias (residual
 * and bias may be NULL; bias is one row, added to every row), the biased variance, as PyTorch
 * computes it; rows `width` floats, packed. `out` may be
 * `x` or `residual`. The caller checks the CPU has AVX-512F. */
void corpus_add_layer_norm_avx512(const float *x, const float *residual, const float *bias, long rows, long width,
                                  const float *gamma, const float *beta, float eps, float *out);
#endif

#endif
