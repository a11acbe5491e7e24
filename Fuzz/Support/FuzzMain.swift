import Foundation
import FuzzPool

/// The fuzz targets, by name. They are linked into one binary (one compile and one link for all
/// of them, which keeps `make test`'s smoke short); `scripts/fuzz-build.sh` gives it one hard
/// link per target, and the name it is started by picks the target, as busybox does. libFuzzer
/// brings `main` and calls the two functions below.
let fuzzTargets: [String: (run: @Sendable (UnsafePointer<UInt8>?, Int) -> Int32, initialize: @Sendable () -> Void)] = [
    "EntitlementToken": (fuzzEntitlementToken, { _ = initializeEntitlementToken(nil, nil) }),
    "FTSQuery": (fuzzFTSQuery, { _ = initializeFTSQuery(nil, nil) }),
    "ImportBrowserExport": (fuzzImportBrowserExport, { _ = initializeImportBrowserExport(nil, nil) }),
    "ImportKnowledgeApp": (fuzzImportKnowledgeApp, { _ = initializeImportKnowledgeApp(nil, nil) }),
    "ImportReaderApp": (fuzzImportReaderApp, { _ = initializeImportReaderApp(nil, nil) }),
    "IngestEPUB": (fuzzIngestEPUB, { _ = initializeIngestEPUB(nil, nil) }),
    "IngestHTML": (fuzzIngestHTML, { _ = initializeIngestHTML(nil, nil) }),
    "IngestMarkdown": (fuzzIngestMarkdown, { _ = initializeIngestMarkdown(nil, nil) }),
    "MinisignText": (fuzzMinisignText, { _ = initializeMinisignText(nil, nil) }),
    "RequestHead": (fuzzRequestHead, { _ = initializeRequestHead(nil, nil) }),
    "SignedDocuments": (fuzzSignedDocuments, { _ = initializeSignedDocuments(nil, nil) }),
    "WordPiece": (fuzzWordPiece, { _ = initializeWordPiece(nil, nil) }),
    "ZipBundle": (fuzzZipBundle, { _ = initializeZipBundle(nil, nil) }),
]

nonisolated(unsafe) private var selectedTarget: ((UnsafePointer<UInt8>?, Int) -> Int32)?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    let program = argv?.pointee?.pointee.map { String(cString: $0) } ?? ""
    let name = String(program.split(separator: "/").last ?? "")
    guard let target = fuzzTargets[name] else {
        FileHandle.standardError.write(Data("start this binary by one of its target names: \(fuzzTargets.keys.sorted().joined(separator: ", "))\n".utf8))
        exit(2)
    }
    selectedTarget = target.run
    // Before any target touches the C libraries: their allocations go to the pool, outside
    // AddressSanitizer (Fuzz/Pool/AllocatorPool.swift says why).
    guard AllocatorPool.installForOpenSSL() else {
        FileHandle.standardError.write(Data("fuzz: OpenSSL allocated before LLVMFuzzerInitialize; its allocator cannot be replaced\n".utf8))
        exit(2)
    }
    AllocatorPool.installForSQLite()
    AllocatorPool.installForLibXML2()
    target.initialize()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    selectedTarget!(data, size)
}
