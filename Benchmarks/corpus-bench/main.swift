import Foundation

/// `corpus-bench <subcommand> [args]`: each benchmark registers one entry here and lives in its own file.
let subcommands: [String: ([String]) async throws -> Void] = [
    "age-decrypt": AgeDecryptBench.run,
    "bundle-stream": BundleStreamBench.run,
    "catalog-tree": CatalogScaleTree.run,
    "minilm": EncoderBench.runMiniLM(args:),
    "encoder": EncoderBench.run(args:),
    "read": ReadBench.run(args:),
    "build": BuildBench.run,
    "delta": DeltaBench.run,
    "engine": EngineBench.run(args:),
    "eval": EvalBench.run(args:),
    "install": InstallBench.run,
    "install-client": ClientInstallBench.run,
    "log": LogBench.run,
    "install-encrypted": EncryptedInstallBench.run,
    "search-load": SearchLoadBench.run(args:),
    "sync": SyncBench.run,
    "zip-readers": ZipReaderBench.run,
]

let args = Array(CommandLine.arguments.dropFirst())
guard let name = args.first, let run = subcommands[name] else {
    FileHandle.standardError.write(Data("usage: corpus-bench <\(subcommands.keys.sorted().joined(separator: "|"))> [args]\n".utf8))
    exit(2)
}
do {
    try await run(Array(args.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("corpus-bench \(name): \(error)\n".utf8))
    exit(1)
}
