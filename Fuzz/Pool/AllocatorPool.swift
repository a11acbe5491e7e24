import CFuzzPool
import Glibc

/// The allocator the fuzz build gives the C libraries it does not instrument (SQLite, libxml2,
/// OpenSSL):
/// blocks kept on free lists by size class and reused.
///
/// Why: under AddressSanitizer every `malloc` records a stack trace and every `free` goes through
/// the quarantine, and SQLite's FTS5 and libxml2's HTML parser allocate for every expression and
/// every node, and OpenSSL for every key and digest context: that was most of the FTSQuery
/// target's time and a large share of IngestHTML's and EntitlementToken's.
/// Neither library is instrumented, and our code only reads what they return or hands them
/// copies, so ASan on their heaps finds nothing the pool loses; the targets' own Swift
/// allocations still go through ASan. Single-threaded, as a fuzz target runs. Blocks on a free
/// list stay reachable from `heads`, so LeakSanitizer sees no leak, and a block the library never
/// frees is still reported.
///
/// `scripts/fuzz-build.sh` compiles this file as a module of its own without the sanitizers: the
/// pool's branches say nothing about the parser under test and should not steer the fuzzer, and
/// counting them cost a tenth of the FTSQuery target's time.
public enum AllocatorPool {
    /// Installs the pool as SQLite's allocator; must run before SQLite's first use.
    public static func installForSQLite() {
        var methods = sqlite3_mem_methods(
            xMalloc: { AllocatorPool.allocate(Int($0)) },
            xFree: { AllocatorPool.free($0) },
            xRealloc: { AllocatorPool.reallocate($0, Int($1)) },
            xSize: { $0.map { Int32(AllocatorPool.usableSize($0)) } ?? 0 },
            xRoundup: { Int32(AllocatorPool.rounded(Int($0))) },
            xInit: { _ in SQLITE_OK },
            xShutdown: { _ in },
            pAppData: nil)
        let rc = fuzz_sqlite3_config_malloc(&methods)
        precondition(rc == SQLITE_OK, "sqlite3_config(SQLITE_CONFIG_MALLOC) returned \(rc): SQLite was used before the pool")
    }

    /// Installs the pool as libxml2's allocator; must run before libxml2's first allocation.
    public static func installForLibXML2() {
        let rc = xmlMemSetup(
            { AllocatorPool.free($0) },
            { AllocatorPool.allocate(max(Int($0), 1)) },
            { AllocatorPool.reallocate($0, max(Int($1), 1)) },
            { text in
                guard let text else { return nil }
                let n = strlen(text) + 1
                guard let copy = AllocatorPool.allocate(n) else { return nil }
                copy.copyMemory(from: text, byteCount: n)
                return copy.assumingMemoryBound(to: CChar.self)
            })
        precondition(rc == 0, "xmlMemSetup returned \(rc)")
    }

    /// Installs the pool as OpenSSL's allocator; must run before OpenSSL's first allocation
    /// (false when it was too late, and OpenSSL keeps its own).
    @discardableResult
    public static func installForOpenSSL() -> Bool {
        CRYPTO_set_mem_functions(
            { n, _, _ in AllocatorPool.allocate(max(n, 1)) },
            { p, n, _, _ in AllocatorPool.reallocate(p, max(n, 1)) },
            { p, _, _ in AllocatorPool.free(p) }) == 1
    }

    /// Size classes of 2^4 … 2^16 bytes; a larger request is its own block (class `large`).
    private static let smallest = 4, largest = 16, large = 255
    /// A block starts with this header (its class and its usable size), then the caller's bytes.
    private static let header = 16
    nonisolated(unsafe) private static var heads = [UnsafeMutableRawPointer?](repeating: nil, count: 17)

    /// The least k ≥ `smallest` with 2^k ≥ n (n ≥ 1).
    private static func sizeClass(_ n: Int) -> Int {
        max(smallest, Int.bitWidth - (n - 1).leadingZeroBitCount)
    }

    private static func rounded(_ n: Int) -> Int {
        n > (1 << largest) ? n : 1 << sizeClass(max(n, 1))
    }

    private static func allocate(_ n: Int) -> UnsafeMutableRawPointer? {
        guard n > 0 else { return nil }
        let k = n > (1 << largest) ? large : sizeClass(n)
        if k != large, let block = heads[k] {
            heads[k] = block.load(fromByteOffset: header, as: UnsafeMutableRawPointer?.self)
            return block + header
        }
        let usable = k == large ? n : 1 << k
        let block = UnsafeMutableRawPointer.allocate(byteCount: header + usable, alignment: 16)
        block.storeBytes(of: k, as: Int.self)
        block.storeBytes(of: usable, toByteOffset: 8, as: Int.self)
        return block + header
    }

    private static func free(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        let block = pointer - header
        let k = block.load(as: Int.self)
        if k == large { block.deallocate(); return }
        block.storeBytes(of: heads[k], toByteOffset: header, as: UnsafeMutableRawPointer?.self)
        heads[k] = block
    }

    private static func usableSize(_ pointer: UnsafeMutableRawPointer) -> Int {
        (pointer - header).load(fromByteOffset: 8, as: Int.self)
    }

    private static func reallocate(_ pointer: UnsafeMutableRawPointer?, _ n: Int) -> UnsafeMutableRawPointer? {
        guard let pointer else { return allocate(n) }
        let old = usableSize(pointer)
        if n <= old && rounded(n) == old { return pointer }
        guard let fresh = allocate(n) else { return nil }
        fresh.copyMemory(from: pointer, byteCount: min(old, n))
        free(pointer)
        return fresh
    }
}
