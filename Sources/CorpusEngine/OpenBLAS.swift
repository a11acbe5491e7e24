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

    /// `cblas_sgemm`, or nil when OpenBLAS cannot be loaded (`BERTEmbedder` refuses before use).
    static let sgemm: SGEMM? = {
        // Only if nobody chose otherwise: a user's OPENBLAS_NUM_THREADS is theirs.
        setenv("OPENBLAS_NUM_THREADS", "1", 0)
        for name in libraryNames {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { continue }
            guard let f = dlsym(handle, "cblas_sgemm") else { continue }
            if let s = dlsym(handle, "openblas_set_num_threads") { unsafeBitCast(s, to: SetThreads.self)(1) }
            return unsafeBitCast(f, to: SGEMM.self)
        }
        return nil
    }()

    /// Whether this process has loaded libopenblas (for tests and the bench: /proc/self/maps).
    static var isLoaded: Bool {
        ((try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? "").contains("libopenblas")
    }
}
#endif
