#if !canImport(Accelerate) && arch(x86_64)
import Foundation
import Testing
@testable import CorpusEngine

/// The few-row kernels against the product computed in Double, on shapes with every kind of
/// edge: rows not a multiple of the row group (6 for AVX-512, 2 for AVX2), outputs not a multiple
/// of 4, and input widths not a multiple of the vector (16, 8), below it and above it.
@Suite struct FewRowProductTests {
    static let shapes = [(1, 1, 1), (1, 4, 16), (5, 7, 19), (6, 8, 32), (7, 13, 9), (13, 37, 100), (14, 64, 768), (32, 5, 33)]
    static var kernels: [FewRowProduct.Kernel] {
        let flags = OpenBLAS.cpuFlags()
        return [FewRowProduct.Kernel.avx512, .avx2].filter { FewRowProduct.kernel(cpuFlags: $0 == .avx512 ? flags : flags.subtracting(["avx512f"])) == $0 }
    }

    @Test func everyKernelThisCPURunsAddsTheProductToWhatTheOutputHolds() throws {
        try #require(!Self.kernels.isEmpty, "this CPU has neither AVX-512F nor AVX2 with FMA")
        for kernel in Self.kernels {
            for (rows, outFeatures, inFeatures) in Self.shapes {
                let x: [Float] = (0..<(rows * inFeatures)).map { Float(($0 * 37) % 23) / 11 - 1 }
                let weight: [Float] = (0..<(outFeatures * inFeatures)).map { Float(($0 * 53) % 29) / 14 - 1 }
                // Rows wider than the output, as a thread's slice of the columns writes them; the
                // extra columns must keep their value.
                let stride = outFeatures + 3
                var y: [Float] = (0..<(rows * stride)).map { Float($0 % 7) }
                let before = y
                FewRowProduct.accumulate(kernel, x, rows: rows, inFeatures: inFeatures, weight: weight,
                                         outFeatures: outFeatures, into: &y, rowStride: stride)
                for r in 0..<rows {
                    for o in 0..<stride {
                        var expected = Double(before[r * stride + o])
                        if o < outFeatures {
                            for i in 0..<inFeatures { expected += Double(x[r * inFeatures + i]) * Double(weight[o * inFeatures + i]) }
                        }
                        #expect(abs(Double(y[r * stride + o]) - expected) < 1e-3,
                                "\(kernel) rows \(rows) out \(outFeatures) in \(inFeatures): row \(r) column \(o)")
                    }
                }
            }
        }
    }

    @Test func theKernelFollowsTheFlagsLinuxReports() {
        #expect(FewRowProduct.kernel(cpuFlags: ["avx512f", "avx2", "fma"]) == .avx512)
        #expect(FewRowProduct.kernel(cpuFlags: ["avx2", "fma"]) == .avx2)
        #expect(FewRowProduct.kernel(cpuFlags: ["avx2"]) == nil)
        #expect(FewRowProduct.kernel(cpuFlags: ["sse4_2"]) == nil)
    }
}
#endif
