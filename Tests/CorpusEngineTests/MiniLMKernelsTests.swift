import Foundation
import Testing
@testable import CorpusEngine

@Suite struct EncoderKernelsTests {
    /// The SIMD exp and erf stay within 2e-7 relative / 5e-7 absolute of libm across the range
    /// the encoder feeds them (softmax inputs ≤ 0, GELU inputs of either sign).
    @Test func expAndErfMatchLibm() {
        var x: Float = -30
        while x < 30 {
            let v = Double(x)
            #expect(abs(Double(EncoderKernels.exp(x)) - Foundation.exp(v)) <= 2e-7 * Foundation.exp(v) + 1e-37, "exp(\(v))")
            #expect(abs(Double(EncoderKernels.erf(x)) - Foundation.erf(v)) <= 5e-7, "erf(\(v))")
            x += 0.00173
        }
    }

    @Test func layerNormAndSoftmaxAgreeWithDirectFormulas() {
        let width = 16
        let x: [Float] = (0..<width).map { Float($0) * 0.5 - 3 }
        let residual: [Float] = (0..<width).map { Float($0 % 3) }
        let gamma: [Float] = (0..<width).map { 1 + Float($0) / 10 }
        let beta: [Float] = (0..<width).map { Float($0) / 100 }
        var out = [Float](repeating: 0, count: width)
        EncoderKernels.addLayerNorm(x, residual: residual, rows: 1, width: width, gamma: gamma, beta: beta,
                                   eps: 1e-12, into: &out)
        let v = zip(x, residual).map { Double($0 + $1) }
        let mean = v.reduce(0, +) / Double(width)
        let variance = v.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(width)
        for i in 0..<width {
            let expected = (v[i] - mean) / variance.squareRoot() * Double(gamma[i]) + Double(beta[i])
            #expect(abs(Double(out[i]) - expected) < 1e-5)
        }

        var row: [Float] = [1, 2, 3, 4, 5, 6, 7, 8, 9, -1, 0.5]
        let original = row
        EncoderKernels.softmaxRows(&row, rows: 1, width: row.count, stride: row.count)
        let z = original.map { Foundation.exp(Double($0)) }.reduce(0, +)
        for i in row.indices { #expect(abs(Double(row[i]) - Foundation.exp(Double(original[i])) / z) < 1e-6) }
    }

    /// A linear layer split by output columns among threads gives every column the value the
    /// direct formula gives, including a last slice narrower than the rest (100 = 64 + 36).
    @Test(arguments: [1, 2, 3]) func aLinearLayerSplitAmongThreadsComputesEveryColumn(_ threads: Int) throws {
        try #require(EncoderKernels.blasAvailable, "OpenBLAS is not installed")
        let rows = 5, inFeatures = 64, outFeatures = 100
        let x: [Float] = (0..<(rows * inFeatures)).map { Float(($0 * 37) % 23) / 11 - 1 }
        let weight: [Float] = (0..<(outFeatures * inFeatures)).map { Float(($0 * 53) % 29) / 14 - 1 }
        let bias: [Float] = (0..<outFeatures).map { Float($0) / 50 }
        var y = [Float](repeating: .nan, count: rows * outFeatures)
        EncoderKernels.linear(x, rows: rows, inFeatures: inFeatures, weight: weight, bias: bias,
                              outFeatures: outFeatures, into: &y, threads: threads)
        for r in 0..<rows {
            for o in 0..<outFeatures {
                var expected = Double(bias[o])
                for i in 0..<inFeatures { expected += Double(x[r * inFeatures + i]) * Double(weight[o * inFeatures + i]) }
                #expect(abs(Double(y[r * outFeatures + o]) - expected) < 1e-4, "row \(r) column \(o)")
            }
        }
    }
}
