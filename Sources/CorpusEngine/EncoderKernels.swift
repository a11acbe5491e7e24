import Foundation
// The BLAS seam: both provide CBLAS's `cblas_sgemm` under the same name and signature.
#if canImport(Accelerate)
internal import Accelerate
#else
internal import COpenBLAS
#endif

/// The element-wise and matrix kernels of the BERT encoder's forward pass, on raw row-major buffers.
///
/// `exp` and `erf` are branch-free polynomial approximations accurate to about 1e-7: libm's
/// `expf`/`erff` are calls the optimizer cannot vectorize, and at these sizes they would cost
/// as much as the matrix multiplies. The loops are plain scalar code on purpose: the optimizer
/// vectorizes them in release builds, and unlike `SIMD8` they stay fast in debug builds.
enum EncoderKernels {
    #if canImport(Accelerate)
    /// Accelerate is part of the system: always there, and nothing to load.
    static var blasAvailable: Bool { true }
    static var blasLibraryNames: [String] { ["Accelerate"] }
    static let sgemm = cblas_sgemm
    #else
    /// Loads OpenBLAS, single-threaded, once per process (`OpenBLAS`): the embedder runs its own
    /// workers, one per core, each on its own sequences. True when it could be loaded.
    static var blasAvailable: Bool { OpenBLAS.sgemm != nil }
    static var blasLibraryNames: [String] { OpenBLAS.libraryNames }
    static var sgemm: OpenBLAS.SGEMM { OpenBLAS.sgemm! }
    #endif

    /// `y[rows × out] = x[rows × in] · Wᵀ + b`, where `W` is `[out × in]` as PyTorch stores
    /// `nn.Linear` weights. The corresponding C function is `cblas_sgemm`. `y`'s rows are
    /// `rowStride` apart (default `outFeatures`), so a slice of the output columns can be
    /// computed on its own (`threads`). Without a bias the product is added to what `y` holds
    /// (`y += x · Wᵀ`): the encoder adds a product onto its residual rows this way and leaves
    /// the bias to the LayerNorm that follows (`addLayerNorm`'s `bias`).
    static func linear(_ x: UnsafePointer<Float>, rows: Int, inFeatures: Int,
                       weight: UnsafePointer<Float>, bias: UnsafePointer<Float>?, outFeatures: Int,
                       into y: UnsafeMutablePointer<Float>, rowStride: Int? = nil) {
        let stride = rowStride ?? outFeatures
        if let bias { for r in 0..<rows { (y + r * stride).update(from: bias, count: outFeatures) } }
        #if !canImport(Accelerate) && arch(x86_64)
        if rows <= FewRowProduct.maxRows, let kernel = FewRowProduct.kernel {
            return FewRowProduct.accumulate(kernel, x, rows: rows, inFeatures: inFeatures, weight: weight,
                                            outFeatures: outFeatures, into: y, rowStride: stride)
        }
        #endif
        sgemm(CblasRowMajor, CblasNoTrans, CblasTrans,
                    Int32(rows), Int32(outFeatures), Int32(inFeatures),
                    1, x, Int32(inFeatures), weight, Int32(inFeatures),
                    1, y, Int32(stride))
    }

    /// `linear` with the output features cut into `threads` slices (multiples of 16, the widest
    /// kernel's block), each computed on its own thread: a query is one short sequence, too few
    /// rows to split, and every slice reads only its own rows of the weights, the cost that
    /// dominates a query (the whole model is read once per query).
    static func linear(_ x: UnsafePointer<Float>, rows: Int, inFeatures: Int,
                       weight: UnsafePointer<Float>, bias: UnsafePointer<Float>?, outFeatures: Int,
                       into y: UnsafeMutablePointer<Float>, threads: Int) {
        guard threads > 1, outFeatures >= 32 * threads else {
            return linear(x, rows: rows, inFeatures: inFeatures, weight: weight, bias: bias, outFeatures: outFeatures, into: y)
        }
        let slice = (outFeatures / threads + 15) / 16 * 16
        // Each thread reads the shared inputs and writes only its own columns of `y`.
        nonisolated(unsafe) let x = x, weight = weight, bias = bias, y = y
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            let low = t * slice, high = min(outFeatures, low + slice)
            guard low < high else { return }
            linear(x, rows: rows, inFeatures: inFeatures, weight: weight + low * inFeatures, bias: bias.map { $0 + low },
                   outFeatures: high - low, into: y + low, rowStride: outFeatures)
        }
    }

    /// `c[m × n] = alpha · a[m × k] · op(b) + beta · c` with explicit leading dimensions;
    /// `op(b)` is `bᵀ` (b stored `[n × k]`) when `transposeB`, else b (`[k × n]`).
    static func gemm(m: Int, n: Int, k: Int, alpha: Float,
                     a: UnsafePointer<Float>, lda: Int,
                     b: UnsafePointer<Float>, ldb: Int, transposeB: Bool,
                     beta: Float, c: UnsafeMutablePointer<Float>, ldc: Int) {
        sgemm(CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                    Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc))
    }

    /// LayerNorm of each `width`-wide row of `x + residual + bias` (residual and bias optional;
    /// bias is one row, added to every row), written to `out`, which may be `x` or `residual`:
    /// `(v - mean) / sqrt(var + eps) · gamma + beta`, with the biased variance, as PyTorch computes it.
    static func addLayerNorm(_ x: UnsafePointer<Float>, residual: UnsafePointer<Float>?, bias: UnsafePointer<Float>? = nil,
                             rows: Int, width: Int, gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>, eps: Float,
                             into out: UnsafeMutablePointer<Float>) {
        #if !canImport(Accelerate) && arch(x86_64)
        if EncoderSIMD.available {
            return EncoderSIMD.addLayerNorm(x, residual: residual, bias: bias, rows: rows, width: width, gamma: gamma, beta: beta,
                                            eps: eps, into: out)
        }
        #endif
        addLayerNormPortable(x, residual: residual, bias: bias, rows: rows, width: width, gamma: gamma, beta: beta, eps: eps, into: out)
    }

    /// `addLayerNorm` in Swift, for CPUs without AVX-512 (and the reference its tests hold `EncoderSIMD` to).
    static func addLayerNormPortable(_ x: UnsafePointer<Float>, residual: UnsafePointer<Float>?, bias: UnsafePointer<Float>? = nil,
                                     rows: Int, width: Int, gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>, eps: Float,
                                     into out: UnsafeMutablePointer<Float>) {
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: width)
        defer { scratch.deallocate() }
        for r in 0..<rows {
            let xr = x + r * width
            let o = out + r * width
            if let residual {
                let rr = residual + r * width
                for j in 0..<width { o[j] = xr[j] + rr[j] }
            } else if o != UnsafeMutablePointer(mutating: xr) {
                o.update(from: xr, count: width)
            }
            if let bias { for j in 0..<width { o[j] += bias[j] } }
            let mean = sum(o, count: width) / Float(width)
            for j in 0..<width { scratch[j] = (o[j] - mean) * (o[j] - mean) }
            let inv = 1 / (sum(scratch, count: width) / Float(width) + eps).squareRoot()
            for j in 0..<width { o[j] = (o[j] - mean) * inv * gamma[j] + beta[j] }
        }
    }

    /// In-place GELU with erf (`x · ½ · (1 + erf(x / √2))`), BERT's `hidden_act: "gelu"`.
    static func gelu(_ x: UnsafeMutablePointer<Float>, count: Int) {
        #if !canImport(Accelerate) && arch(x86_64)
        if EncoderSIMD.available { return EncoderSIMD.gelu(x, count: count) }
        #endif
        geluPortable(x, count: count)
    }

    /// `gelu` in Swift, for CPUs without AVX-512 (and the reference its tests hold `EncoderSIMD` to).
    static func geluPortable(_ x: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count {
            let v = x[i]
            x[i] = v * 0.5 * (1 + erf(v * 0.70710678118654752))
        }
    }

    /// In-place softmax of each `width`-long row (stride `stride`).
    static func softmaxRows(_ x: UnsafeMutablePointer<Float>, rows: Int, width: Int, stride: Int) {
        for r in 0..<rows {
            let row = x + r * stride
            let maxValue = maximum(row, count: width)
            for j in 0..<width { row[j] = exp(row[j] - maxValue) }
            let inv = 1 / sum(row, count: width)
            for j in 0..<width { row[j] *= inv }
        }
    }

    /// Sum of `count` floats with eight running partial sums: one accumulator would make every
    /// addition wait for the previous one (and float addition may not be reordered for us).
    @inline(__always)
    static func sum(_ x: UnsafePointer<Float>, count: Int) -> Float {
        var partial = (Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0), Float(0))
        var j = 0
        while j + 8 <= count {
            partial.0 += x[j]; partial.1 += x[j + 1]; partial.2 += x[j + 2]; partial.3 += x[j + 3]
            partial.4 += x[j + 4]; partial.5 += x[j + 5]; partial.6 += x[j + 6]; partial.7 += x[j + 7]
            j += 8
        }
        var total = ((partial.0 + partial.1) + (partial.2 + partial.3)) + ((partial.4 + partial.5) + (partial.6 + partial.7))
        while j < count { total += x[j]; j += 1 }
        return total
    }

    /// Largest of `count` floats (count ≥ 1), with eight running maxima, as `sum`.
    @inline(__always)
    static func maximum(_ x: UnsafePointer<Float>, count: Int) -> Float {
        var m = (x[0], x[0], x[0], x[0], x[0], x[0], x[0], x[0])
        var j = 0
        while j + 8 <= count {
            m.0 = max(m.0, x[j]); m.1 = max(m.1, x[j + 1]); m.2 = max(m.2, x[j + 2]); m.3 = max(m.3, x[j + 3])
            m.4 = max(m.4, x[j + 4]); m.5 = max(m.5, x[j + 5]); m.6 = max(m.6, x[j + 6]); m.7 = max(m.7, x[j + 7])
            j += 8
        }
        var result = max(max(max(m.0, m.1), max(m.2, m.3)), max(max(m.4, m.5), max(m.6, m.7)))
        while j < count { result = max(result, x[j]); j += 1 }
        return result
    }

    /// e^x, Cephes `expf` (as in sse_mathfun): range reduction by ln 2, degree-6 polynomial,
    /// then 2^n by building the float's exponent bits. Relative error about 1e-7.
    /// Only branch-free arithmetic, so the optimizer vectorizes the loops that call it.
    @inline(__always)
    static func exp(_ x: Float) -> Float {
        let clamped = Swift.min(Swift.max(x, -87.3), 88.3)
        // Adding 1.5·2²³ rounds to the nearest integer (ties to even) without a rounding call.
        let magic: Float = 12582912
        let shifted = clamped * 1.44269504088896341 + magic
        let n = shifted - magic
        var r = clamped - n * 0.693359375
        r = r + n * 2.12194440e-4
        var p: Float = 1.9875691500e-4
        p = p * r + 1.3981999507e-3
        p = p * r + 8.3334519073e-3
        p = p * r + 4.1665795894e-2
        p = p * r + 1.6666665459e-1
        p = p * r + 5.0000001201e-1
        let y = p * r * r + r + 1
        // The integer n sits in the low mantissa bits of `shifted` (0x4B400000 + n), so 2^n is
        // built with integer arithmetic only, no float-to-int conversion (which checks range).
        return y * Float(bitPattern: (shifted.bitPattern &- 0x4B40_0000 &+ 127) &<< 23)
    }

    /// erf(x), Abramowitz & Stegun 7.1.26: `1 - (a₁t + … + a₅t⁵)·e^{-x²}`, t = 1/(1 + p|x|),
    /// sign restored after; absolute error below 1.5e-7 (plus float rounding).
    @inline(__always)
    static func erf(_ x: Float) -> Float {
        let a = x.magnitude
        let t = 1 / (1 + 0.3275911 * a)
        var poly: Float = 1.061405429
        poly = poly * t - 1.453152027
        poly = poly * t + 1.421413741
        poly = poly * t - 0.284496736
        poly = poly * t + 0.254829592
        poly = poly * t
        let y = 1 - poly * exp(-(a * a))
        return Float(signOf: x, magnitudeOf: y)
    }

    /// Mean of `rows` rows of width `width`, then, when `normalize`, scaled to unit L2 norm
    /// (`max(‖v‖, 1e-12)`, as `torch.nn.functional.normalize`).
    static func pool(_ x: UnsafePointer<Float>, rows: Int, width: Int, normalize: Bool = true) -> [Float] {
        var v = [Float](repeating: 0, count: width)
        for r in 0..<rows {
            let row = x + r * width
            for j in 0..<width { v[j] += row[j] }
        }
        let scale = 1 / Float(max(rows, 1))
        var norm: Float = 0
        for j in 0..<width {
            v[j] *= scale
            norm += v[j] * v[j]
        }
        guard normalize else { return v }
        let inv = 1 / max(norm.squareRoot(), 1e-12)
        for j in 0..<width { v[j] *= inv }
        return v
    }
}
