import Foundation

/// `corpus-bench SUBCOMMAND [options]`: each subcommand is one benchmark with a `run(args:)` entry.
enum BenchMain {
    static let subcommands = ["engine"]
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "engine":
    try await EngineBench.run(args: Array(arguments.dropFirst()))
default:
    FileHandle.standardError.write(Data("usage: corpus-bench \(BenchMain.subcommands.joined(separator: "|")) [options]\n".utf8))
    exit(2)
}
