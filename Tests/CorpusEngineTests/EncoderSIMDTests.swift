#if !canImport(Accelerate) && arch(x86_64)
import Foundation
import Testing
@testable import CorpusEngine

/// The AVX-512 kernels of the encoder's passes other than the large products (attention per head,
/// GELU, residual add with LayerNorm) against the same formulas computed in Double, on shapes with
/// every kind of edge: token counts and widths below, at and above the vector (16) and the key
/// block (64), strides wider than the data, and outputs that share a buffer with their input.
@Suite struct EncoderSIMDTests {
    static let attentionShapes = [(1, 1), (1, 32), (3, 17), (4, 16), (5, 64), (12, 32), (17, 80), (63, 24),
                                  (64, 64), (65, 33), (128, 32), (130, 64)]

    @Test func theKernelsFollowTheFlagsLinuxReports() {
        #expect(EncoderSIMD.available(cpuFlags: ["avx512f", "avx2", "fma"]))
        #expect(!EncoderSIMD.available(cpuFlags: ["avx2", "fma"]))
    }

    @Test func attentionPerHeadIsSoftmaxOfScaledScoresTimesValues() throws {
        try #require(EncoderSIMD.available, "this CPU has no AVX-512F")
        for (n, dh) in Self.attentionShapes {
            // Q, K and V side by side in each row, with room to spare, as one head's columns of the packed QKV.
            let stride = 3 * dh + 5
            let qkv: [Float] = (0..<(n * stride)).map { Float(($0 * 37) % 23) / 5 - 2.3 }
            let outStride = dh + 3
            var out: [Float] = (0..<(n * outStride)).map { Float($0 % 7) }
            let before = out
            var scratch = [Float](repeating: .nan, count: EncoderSIMD.attentionScratch(tokens: n, headWidth: dh))
            let scale = 1 / Float(dh).squareRoot()
            qkv.withUnsafeBufferPointer { p in
                let q = p.baseAddress!
                EncoderSIMD.attentionHead(tokens: n, headWidth: dh, q: q, k: q + dh, v: q + 2 * dh, stride: stride, scale: scale,
                                          into: &out, outStride: outStride, scratch: &scratch)
            }
            for i in 0..<n {
                let scores = (0..<n).map { j in
                    (0..<dh).reduce(0.0) { $0 + Double(qkv[i * stride + $1]) * Double(qkv[j * stride + dh + $1]) } * Double(scale)
                }
                let top = scores.max()!
                let weights = scores.map { Foundation.exp($0 - top) }
                let total = weights.reduce(0, +)
                for c in 0..<outStride {
                    let expected = c < dh
                        ? (0..<n).reduce(0.0) { $0 + weights[$1] / total * Double(qkv[$1 * stride + 2 * dh + c]) }
                        : Double(before[i * outStride + c])
                    #expect(abs(Double(out[i * outStride + c]) - expected) < 1e-5, "n \(n) dh \(dh): row \(i) column \(c)")
                }
            }
        }
    }

    @Test(arguments: [0, 1, 15, 16, 17, 100, 1537])
    func geluIsXTimesHalfOfOnePlusErf(_ count: Int) throws {
        try #require(EncoderSIMD.available, "this CPU has no AVX-512F")
        let x: [Float] = (0..<(count + 1)).map { Float($0 % 251) * 0.08 - 10 }
        var y = x
        EncoderSIMD.gelu(&y, count: count)
        for i in 0..<count {
            let v = Double(x[i])
            #expect(abs(Double(y[i]) - v * 0.5 * (1 + Foundation.erf(v / 2.0.squareRoot()))) < 1e-6, "gelu(\(v))")
        }
        #expect(y[count] == x[count], "the element after the last is left alone")
    }

    @Test(arguments: [1, 5, 16, 17, 384, 770])
    func layerNormOfTheSumNormalizesEachRow(_ width: Int) throws {
        try #require(EncoderSIMD.available, "this CPU has no AVX-512F")
        let rows = 3
        let x: [Float] = (0..<(rows * width)).map { Float(($0 * 37) % 23) / 5 - 2 }
        let residual: [Float] = (0..<(rows * width)).map { Float($0 % 7) / 3 }
        let gamma: [Float] = (0..<width).map { 1 + Float($0 % 10) / 10 }
        let beta: [Float] = (0..<width).map { Float($0 % 13) / 100 }
        func expected(_ withResidual: Bool) -> [Double] {
            (0..<rows).flatMap { r -> [Double] in
                let v = (0..<width).map { Double(x[r * width + $0]) + (withResidual ? Double(residual[r * width + $0]) : 0) }
                let mean = v.reduce(0, +) / Double(width)
                let variance = v.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(width)
                return v.indices.map { ($0, v[$0]) }.map { j, value in
                    (value - mean) / (variance + 1e-12).squareRoot() * Double(gamma[j]) + Double(beta[j])
                }
            }
        }
        // Into a third buffer, onto the input, onto the residual, and with no residual.
        var out = [Float](repeating: .nan, count: rows * width)
        EncoderSIMD.addLayerNorm(x, residual: residual, rows: rows, width: width, gamma: gamma, beta: beta, eps: 1e-12, into: &out)
        var onInput = x
        onInput.withUnsafeMutableBufferPointer { p in
            EncoderSIMD.addLayerNorm(p.baseAddress!, residual: residual, rows: rows, width: width, gamma: gamma, beta: beta, eps: 1e-12,
                                     into: p.baseAddress!)
        }
        var onResidual = residual
        onResidual.withUnsafeMutableBufferPointer { p in
            EncoderSIMD.addLayerNorm(x, residual: p.baseAddress!, rows: rows, width: width, gamma: gamma, beta: beta, eps: 1e-12,
                                     into: p.baseAddress!)
        }
        var alone = [Float](repeating: .nan, count: rows * width)
        EncoderSIMD.addLayerNorm(x, residual: nil, rows: rows, width: width, gamma: gamma, beta: beta, eps: 1e-12, into: &alone)
        for (name, got, want) in [("out", out, expected(true)), ("onto x", onInput, expected(true)),
                                  ("onto residual", onResidual, expected(true)), ("no residual", alone, expected(false))] {
            for i in got.indices {
                #expect(abs(Double(got[i]) - want[i]) < 2e-5, "\(name) width \(width): element \(i)")
            }
        }
    }

    /// The bias row of the product before a LayerNorm (the encoder adds it there instead of
    /// copying it into every output row) is added to every row, with or without a residual,
    /// as the portable Swift code adds it.
    @Test(arguments: [1, 16, 17, 384, 770])
    func layerNormAddsABiasRowToEveryRow(_ width: Int) throws {
        try #require(EncoderSIMD.available, "this CPU has no AVX-512F")
        let rows = 3
        let x: [Float] = (0..<(rows * width)).map { Float(($0 * 37) % 23) / 5 - 2 }
        let residual: [Float] = (0..<(rows * width)).map { Float($0 % 7) / 3 }
        let bias: [Float] = (0..<width).map { Float(($0 * 11) % 9) / 4 - 1 }
        let gamma: [Float] = (0..<width).map { 1 + Float($0 % 10) / 10 }
        let beta: [Float] = (0..<width).map { Float($0 % 13) / 100 }
        for withResidual in [true, false] {
            // The sum done first by hand, then normalized with neither residual nor bias.
            let sum = (0..<(rows * width)).map { x[$0] + (withResidual ? residual[$0] : 0) + bias[$0 % width] }
            var want = [Float](repeating: .nan, count: rows * width)
            EncoderKernels.addLayerNormPortable(sum, residual: nil, rows: rows, width: width, gamma: gamma, beta: beta, eps: 1e-12, into: &want)
            var got = x
            var portable = [Float](repeating: .nan, count: rows * width)
            got.withUnsafeMutableBufferPointer { p in
                EncoderSIMD.addLayerNorm(p.baseAddress!, residual: withResidual ? residual : nil, bias: bias, rows: rows, width: width,
                                         gamma: gamma, beta: beta, eps: 1e-12, into: p.baseAddress!)
            }
            EncoderKernels.addLayerNormPortable(x, residual: withResidual ? residual : nil, bias: bias, rows: rows, width: width,
                                                gamma: gamma, beta: beta, eps: 1e-12, into: &portable)
            for i in got.indices {
                #expect(abs(got[i] - want[i]) < 2e-5, "SIMD width \(width), residual \(withResidual): element \(i)")
                #expect(abs(portable[i] - want[i]) < 2e-5, "portable width \(width), residual \(withResidual): element \(i)")
            }
        }
    }
}
#endif
