// Linux's side only, as FewRowProduct: on Apple platforms the portable Swift kernels serve.
#if !canImport(Accelerate) && arch(x86_64)
internal import CEncoderKernels

/// The encoder's passes other than the large matrix products, in AVX-512 (C in
/// `Sources/CEncoderKernels`): attention per head fused into one pass (`attention.c`), GELU
/// (`gelu.c`) and the residual add with LayerNorm (`layer_norm.c`). At 384 wide these took a third of a passage's time as sgemm calls per head and
/// scalar Swift loops (docs/engine.md "Matrix products"). A CPU without AVX-512F keeps the
/// portable path in `EncoderKernels` and `BERTEncoder`.
enum EncoderSIMD {
    /// True when this CPU runs the kernels: AVX-512F in the flags Linux reports.
    static let available = available(cpuFlags: OpenBLAS.cpuFlags())

    static func available(cpuFlags flags: Set<String>) -> Bool { flags.contains("avx512f") }

    /// Floats of scratch `attentionHead` needs for `n` tokens and heads `headWidth` wide.
    static func attentionScratch(tokens n: Int, headWidth: Int) -> Int {
        corpus_attention_scratch_floats(n, headWidth)
    }

    /// `out = softmax(scale · Q·Kᵀ) · V` for one head of one sequence of `n` tokens: Q, K and V
    /// are `n` rows of `headWidth` floats, `stride` apart; `out`'s rows are `outStride` apart.
    static func attentionHead(tokens n: Int, headWidth: Int, q: UnsafePointer<Float>, k: UnsafePointer<Float>,
                              v: UnsafePointer<Float>, stride: Int, scale: Float,
                              into out: UnsafeMutablePointer<Float>, outStride: Int,
                              scratch: UnsafeMutablePointer<Float>) {
        corpus_attention_head_avx512(n, headWidth, q, k, v, stride, scale, out, outStride, scratch)
    }

    /// LayerNorm of each row of `x + residual + bias`, as `EncoderKernels.addLayerNorm`.
    static func addLayerNorm(_ x: UnsafePointer<Float>, residual: UnsafePointer<Float>?, bias: UnsafePointer<Float>? = nil,
                             rows: Int, width: Int, gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>, eps: Float,
                             into out: UnsafeMutablePointer<Float>) {
        corpus_add_layer_norm_avx512(x, residual, bias, rows, width, gamma, beta, eps, out)
    }

    /// In-place GELU (erf form), as `EncoderKernels.gelu`.
    static func gelu(_ x: UnsafeMutablePointer<Float>, count: Int) {
        corpus_gelu_avx512(x, count)
    }
}
#endif
