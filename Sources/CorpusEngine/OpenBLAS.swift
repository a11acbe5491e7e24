// Linux's side of the BLAS seam (EncoderKernels); Apple platforms call Accelerate's cblas_sgemm.
#if !canImport(Accelerate)
import Foundation
internal import COpenBLAS

/// OpenBLAS, loaded the first time a model multiplies a matrix, not when the process starts.
///
/// Linked the usual way, libopenblas's load-time constructor starts its thread pool (one busy
/// thread per core) in every process that links the engine, before `main`: every `corpus search`
/// over model-free corpora paid for it (docs/engine.md "Start-up"). Loaded here with `dlopen`
/// after `OPENBLAS_NUM_THREADS=1` is set, its constructor starts no extra thread at all, and only
/// processes that run MiniLM load it. The embedder runs one worker per core itself, each on its
/// own sequences; OpenBLAS's threads would split every multiply instead, a synchronization per
/// call (hundreds per batch), and they busy-wait between calls.
enum OpenBLAS {
    typealias SGEMM = @convention(c) (CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint,
                                      Float, UnsafePointer<Float>?, blasint, UnsafePointer<Float>?, blasint,
                                      Float, UnsafeMutablePointer<Float>?, blasint) -> Void
    typealias SetThreads = @convention(c) (Int32) -> Void

    /// Debian's runtime name (libopenblas0-pthread), then the development symlink.
    static let libraryNames = ["libopenblas.so.0", "libopenblas.so"]

    /// The library, opened once with RTLD_LOCAL and kept for the process's life (never closed:
    /// its kernels are in use until exit). nil when no name could be opened with `cblas_sgemm`.
    /// Immutable after its one initialisation, hence safe to share.
    nonisolated(unsafe) private static let library: UnsafeMutableRawPointer? = {
        // Only if nobody chose otherwise: a user's OPENBLAS_NUM_THREADS and OPENBLAS_CORETYPE are theirs.
        setenv("OPENBLAS_NUM_THREADS", "1", 0)
        if let core = coreType(cpuFlags: cpuFlags()) { setenv("OPENBLAS_CORETYPE", core, 0) }
        for name in libraryNames {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { continue }
            guard dlsym(handle, "cblas_sgemm") != nil else { dlclose(handle); continue }
            if let s = dlsym(handle, "openblas_set_num_threads") { unsafeBitCast(s, to: SetThreads.self)(1) }
            return handle
        }
        return nil
    }()

    /// `cblas_sgemm`, or nil when OpenBLAS cannot be loaded (`BERTEmbedder` refuses before use).
    static let sgemm: SGEMM? = library.flatMap { dlsym($0, "cblas_sgemm") }.map { unsafeBitCast($0, to: SGEMM.self) }

    /// The OpenBLAS core whose sgemm kernels fit a CPU with these feature flags (as Linux lists
    /// them in /proc/cpuinfo, so only features the kernel enabled), or nil to leave the choice
    /// to OpenBLAS.
    ///
    /// OpenBLAS picks its kernels from the CPU's family and model, and a model newer than its
    /// table gets the Prescott (SSE3) kernels: Debian 12's 0.3.21 does that on family 6 model 207
    /// (Emerald Rapids), where encoding ran 3.7 times slower than with the AVX-512 kernels
    /// (docs/engine.md "Matrix products"). Every AVX-512 core OpenBLAS knows (SkylakeX, Cooperlake,
    /// SapphireRapids) multiplies floats with SkylakeX's sgemm kernels, and every AVX2 one
    /// (Haswell, Zen, …) with Haswell's; so naming that core changes nothing on a CPU OpenBLAS
    /// knows and gives one it does not know the kernels its features allow.
    static func coreType(cpuFlags flags: Set<String>) -> String? {
        if ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"].allSatisfy(flags.contains) { return "SkylakeX" }
        if ["avx2", "fma"].allSatisfy(flags.contains) { return "Haswell" }
        return nil
    }

    /// The first processor's `flags` line of /proc/cpuinfo; empty when it cannot be read.
    static func cpuFlags() -> Set<String> {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("flags") }),
              let colon = line.firstIndex(of: ":") else { return [] }
        return Set(line[line.index(after: colon)...].split(separator: " ").map(String.init))
    }

    /// The core OpenBLAS runs its kernels for (`openblas_get_corename`), once loaded.
    static var coreName: String? {
        typealias CoreName = @convention(c) () -> UnsafePointer<CChar>?
        guard let library, let f = dlsym(library, "openblas_get_corename") else { return nil }
        return unsafeBitCast(f, to: CoreName.self)().map { String(cString: $0) }
    }

    /// Whether this process has loaded libopenblas (for tests and the bench: /proc/self/maps).
    static var isLoaded: Bool {
        ((try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? "").contains("libopenblas")
    }
}
#endif
