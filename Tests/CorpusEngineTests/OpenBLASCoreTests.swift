#if !canImport(Accelerate)
import Foundation
import Testing
@testable import CorpusEngine

/// OpenBLAS picks kernels by CPU model and falls back to SSE3 ones on a model it does not know;
/// the loader names the core from the CPU's features instead (`OpenBLAS.coreType`).
@Suite struct OpenBLASCoreTests {
    @Test(arguments: [
        (["sse3", "avx", "avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"], "SkylakeX"),
        // AVX-512 without the byte/word and vector-length extensions (Knights Landing) is no SkylakeX.
        (["sse3", "avx", "avx2", "fma", "avx512f", "avx512cd"], "Haswell"),
        (["sse3", "avx", "avx2", "fma"], "Haswell"),
        (["sse3", "avx", "avx2"], nil),
        (["sse3", "avx"], nil),
        ([], nil),
    ] as [([String], String?)])
    func theCoreFollowsTheFeaturesLinuxEnabled(_ flags: [String], _ core: String?) {
        #expect(OpenBLAS.coreType(cpuFlags: Set(flags)) == core)
    }

    /// On this machine (family 6 model 207, unknown to Debian 12's OpenBLAS 0.3.21) the kernels
    /// were Prescott's, 3.7 times slower, until the loader named the core.
    @Test func theLoadedCoreIsTheOneTheFeaturesAllow() throws {
        try #require(OpenBLAS.sgemm != nil, "OpenBLAS is not installed")
        let user = ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"]
        let expected = OpenBLAS.coreType(cpuFlags: OpenBLAS.cpuFlags())
        try #require(user == nil || user == expected, "OPENBLAS_CORETYPE is set to \(user ?? "") here")
        let name = try #require(OpenBLAS.coreName)
        if let expected {
            #expect(name.lowercased() == expected.lowercased())
        } else {
            #expect(!name.isEmpty)
        }
    }
}
#endif
