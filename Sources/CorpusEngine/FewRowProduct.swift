// Linux's side only: on Apple platforms Accelerate's sgemm serves every shape (docs/apple.md).
#if !canImport(Accelerate) && arch(x86_64)
internal import CEncoderKernels

/// The product of a few rows with a layer's weights, for a query: a general sgemm copies the
/// weights into packed panels on every call, which costs as much as the multiply when there are
/// only 10–30 rows, and the whole model is read once per query (docs/engine.md "Matrix products").
/// These kernels read each weight once, straight from the memory-mapped model.
enum FewRowProduct {
    enum Kernel: Sendable, Equatable { case avx512, avx2 }

    /// Up to this many rows the few-row kernels beat OpenBLAS's sgemm on this project's shapes;
    /// from about 48 rows sgemm's packing pays for itself (measured in docs/engine.md).
    static let maxRows = 32

    /// The kernel this CPU runs, from its flags; nil leaves every product to sgemm.
    static let kernel: Kernel? = kernel(cpuFlags: OpenBLAS.cpuFlags())

    /// AVX-512F first, then AVX2 with FMA; the flags are Linux's, so only features the kernel enabled.
    static func kernel(cpuFlags flags: Set<String>) -> Kernel? {
        if flags.contains("avx512f") { return .avx512 }
        if flags.contains("avx2") && flags.contains("fma") { return .avx2 }
        return nil
    }

    /// `y[r · rowStride + o] += Σᵢ x[r · inFeatures + i] · weight[o · inFeatures + i]`: adds `x · Wᵀ`
    /// to what `y` holds (the caller's bias), `W` being `[outFeatures × inFeatures]`.
    static func accumulate(_ kernel: Kernel, _ x: UnsafePointer<Float>, rows: Int, inFeatures: Int,
                           weight: UnsafePointer<Float>, outFeatures: Int,
                           into y: UnsafeMutablePointer<Float>, rowStride: Int) {
        switch kernel {
        case .avx512:
            corpus_few_rows_avx512(rows, outFeatures, inFeatures, x, inFeatures, weight, y, rowStride)
        case .avx2:
            corpus_few_rows_avx2(rows, outFeatures, inFeatures, x, inFeatures, weight, y, rowStride)
        }
    }
}
#endif
