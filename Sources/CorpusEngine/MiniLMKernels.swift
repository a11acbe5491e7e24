import Foundation
internal import COpenBLAS

/// The element-wise and matrix kernels of the MiniLM forward pass, on raw row-major buffers.
///
/// Element-wise work runs eight lanes at a time (`SIMD8<Float>`); `exp` and `erf` are
/// polynomial approximations accurate to about 1e-7, because libm's scalar `expf`/`erff`
/// would cost as much as the matrix multiplies themselves at these sizes.
enum MiniLMKernels {
    typealias V = SIMD8<Float>

    /// `y[rows × out] = x[rows × in] · Wᵀ + b`, where `W` is `[out × in]` as PyTorch stores
    /// `nn.Linear` weights. The corresponding C function is `cblas_sgemm`.
    static func linear(_ x: UnsafePointer<Float>, rows: Int, inFeatures: Int, inStride: Int? = nil,
                       weight: UnsafePointer<Float>, bias: UnsafePointer<Float>, outFeatures: Int,
                       into y: UnsafeMutablePointer<Float>) {
        for r in 0..<rows { (y + r * outFeatures).update(from: bias, count: outFeatures) }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans,
                    Int32(rows), Int32(outFeatures), Int32(inFeatures),
                    1, x, Int32(inStride ?? inFeatures), weight, Int32(inFeatures),
                    1, y, Int32(outFeatures))
    }

    /// `c[m × n] = alpha · a[m × k] · op(b) + beta · c` with explicit leading dimensions;
    /// `op(b)` is `bᵀ` (b stored `[n × k]`) when `transposeB`, else b (`[k × n]`).
    static func gemm(m: Int, n: Int, k: Int, alpha: Float,
                     a: UnsafePointer<Float>, lda: Int,
                     b: UnsafePointer<Float>, ldb: Int, transposeB: Bool,
                     beta: Float, c: UnsafeMutablePointer<Float>, ldc: Int) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                    Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc))
    }

    /// In-place LayerNorm of each `width`-wide row of `x + residual` (residual optional),
    /// written to `out`: `(v - mean) / sqrt(var + eps) · gamma + beta`, biased variance as PyTorch.
    static func addLayerNorm(_ x: UnsafePointer<Float>, residual: UnsafePointer<Float>?, rows: Int, width: Int,
                             gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>, eps: Float,
                             into out: UnsafeMutablePointer<Float>) {
        precondition(width % 8 == 0)
        let lanes = width / 8
        for r in 0..<rows {
            let xr = UnsafeRawPointer(x + r * width)
            let rr = residual.map { UnsafeRawPointer($0 + r * width) }
            let o = UnsafeMutableRawPointer(out + r * width)
            var sum = V()
            for i in 0..<lanes {
                var v = xr.loadUnaligned(fromByteOffset: i * 32, as: V.self)
                if let rr { v += rr.loadUnaligned(fromByteOffset: i * 32, as: V.self) }
                o.storeBytes(of: v, toByteOffset: i * 32, as: V.self)
                sum += v
            }
            let mean = sum.sum() / Float(width)
            var squares = V()
            for i in 0..<lanes {
                let d = o.loadUnaligned(fromByteOffset: i * 32, as: V.self) - mean
                squares += d * d
            }
            let inv = 1 / (squares.sum() / Float(width) + eps).squareRoot()
            let g = UnsafeRawPointer(gamma), b = UnsafeRawPointer(beta)
            for i in 0..<lanes {
                let v = o.loadUnaligned(fromByteOffset: i * 32, as: V.self)
                let y = (v - mean) * inv * g.loadUnaligned(fromByteOffset: i * 32, as: V.self)
                    + b.loadUnaligned(fromByteOffset: i * 32, as: V.self)
                o.storeBytes(of: y, toByteOffset: i * 32, as: V.self)
            }
        }
    }

    /// In-place GELU with erf (`x · ½ · (1 + erf(x / √2))`), BERT's `hidden_act: "gelu"`.
    static func gelu(_ x: UnsafeMutablePointer<Float>, count: Int) {
        let raw = UnsafeMutableRawPointer(x)
        let full = count / 8
        for i in 0..<full {
            let v = raw.loadUnaligned(fromByteOffset: i * 32, as: V.self)
            raw.storeBytes(of: v * 0.5 * (1 + erf(v * 0.70710678118654752)), toByteOffset: i * 32, as: V.self)
        }
        for i in (full * 8)..<count {
            var lane = V(repeating: 0)
            lane[0] = x[i]
            x[i] = (lane * 0.5 * (1 + erf(lane * 0.70710678118654752)))[0]
        }
    }

    /// In-place softmax of each `width`-long row (stride `stride`).
    static func softmaxRows(_ x: UnsafeMutablePointer<Float>, rows: Int, width: Int, stride: Int) {
        let full = width / 8
        for r in 0..<rows {
            let row = x + r * stride
            let raw = UnsafeMutableRawPointer(row)
            var maxValue = -Float.infinity
            for j in 0..<width { maxValue = max(maxValue, row[j]) }
            var sum: Float = 0
            var sums = V()
            for i in 0..<full {
                let e = exp(raw.loadUnaligned(fromByteOffset: i * 32, as: V.self) - maxValue)
                raw.storeBytes(of: e, toByteOffset: i * 32, as: V.self)
                sums += e
            }
            sum = sums.sum()
            for j in (full * 8)..<width {
                let e = exp(V(repeating: row[j] - maxValue))[0]
                row[j] = e
                sum += e
            }
            let inv = 1 / sum
            for j in 0..<width { row[j] *= inv }
        }
    }

    /// e^x, Cephes `expf` (as in sse_mathfun): range reduction by ln 2, degree-6 polynomial,
    /// then 2^n by building the float's exponent bits. Relative error about 1e-7.
    @inline(__always)
    static func exp(_ x: V) -> V {
        let clamped = x.clamped(lowerBound: V(repeating: -87.3), upperBound: V(repeating: 88.3))
        let n = (clamped * 1.44269504088896341).rounded(.toNearestOrEven)
        var r = clamped - n * 0.693359375
        r = r + n * 2.12194440e-4
        var p = V(repeating: 1.9875691500e-4)
        p = p * r + 1.3981999507e-3
        p = p * r + 8.3334519073e-3
        p = p * r + 4.1665795894e-2
        p = p * r + 1.6666665459e-1
        p = p * r + 5.0000001201e-1
        let y = p * r * r + r + 1
        let bits = (SIMD8<Int32>(n, rounding: .towardZero) &+ 127) &<< 23
        return y * unsafeBitCast(bits, to: V.self)
    }

    /// erf(x), Abramowitz & Stegun 7.1.26: `1 - (a₁t + … + a₅t⁵)·e^{-x²}`, t = 1/(1 + p|x|),
    /// sign restored after; absolute error below 1.5e-7.
    @inline(__always)
    static func erf(_ x: V) -> V {
        let a = x.replacing(with: -x, where: x .< 0)
        let t = 1 / (1 + 0.3275911 * a)
        var poly = V(repeating: 1.061405429)
        poly = poly * t - 1.453152027
        poly = poly * t + 1.421413741
        poly = poly * t - 0.284496736
        poly = poly * t + 0.254829592
        poly = poly * t
        let y = 1 - poly * exp(-(a * a))
        return y.replacing(with: -y, where: x .< 0)
    }

    /// Mean of `rows` rows of width `width`, then scaled to unit L2 norm (`max(‖v‖, 1e-12)`,
    /// as `torch.nn.functional.normalize`).
    static func meanPoolNormalized(_ x: UnsafePointer<Float>, rows: Int, width: Int) -> [Float] {
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
        let inv = 1 / max(norm.squareRoot(), 1e-12)
        for j in 0..<width { v[j] *= inv }
        return v
    }
}
