/* Matrix products for a few rows at a time (a query's tokens), where a general sgemm spends more
 * time packing the weights than multiplying them. See FewRowProduct.swift. */
#ifndef CORPUS_FEW_ROW_PRODUCT_H
#define CORPUS_FEW_ROW_PRODUCT_H

#if defined(__x86_64__)
/* y[r * ldy + o] += sum over i of x[r * ldx + i] * w[o * in + i], for r < rows, o < out:
 * y = x · wᵀ added to what y holds (the caller puts the bias there), w row-major [out × in] as
 * PyTorch stores nn.Linear weights. Each reads the weights once, whatever `rows` is.
 * The caller checks the CPU first: AVX-512F for the first, AVX2 and FMA for the second. */
void corpus_few_rows_avx512(long rows, long out, long in, const float *x, long ldx, const float *w,
                            float *y, long ldy);
void corpus_few_rows_avx2(long rows, long out, long in, const float *x, long ldx, const float *w,
                          float *y, long ldy);
#endif

#endif
