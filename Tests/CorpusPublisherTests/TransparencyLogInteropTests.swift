import CorpusFormat
import CorpusPublisher
import CorpusTestSupport
import Foundation
import Testing

/// Our log checked by code this project did not write: Go's golang.org/x/mod/sumdb/tlog and
/// sumdb/note (Debian's golang-golang-x-mod-dev, installed by scripts/bootstrap.sh), driven by
/// Tests/Fixtures/tlog-interop/tlogcheck.go. Leaves come from our entry bundles, roots and proofs
/// from our tiles on disk.
@Suite(.enabled(if: GoTlog.available, "needs go and golang-golang-x-mod-dev (scripts/bootstrap.sh)"))
struct TransparencyLogInteropTests {
    @Test func goChecksOurRootsAndProofsAtEverySizeTo300() throws {
        let dir = TempDirectory("tlog-go")
        _ = try TransparencyLogWriterTests.leafByLeafLog(dir)
        let folder = LogFolder(path: dir.path)
        var commands: [String] = []
        let bundles = [TilePath(kind: .entries, index: 0), TilePath(kind: .entries, index: 1, partialWidth: 44)]
        for leaf in try bundles.flatMap({ try EntryBundle.decode(try folder.tile($0), path: $0) }) {
            commands.append("leaf " + (leaf.isEmpty ? "" : Hex.encode(leaf)))
        }
        func list(_ proof: [[UInt8]]) -> String { proof.isEmpty ? "-" : proof.map { Hex.encode($0) }.joined(separator: ",") }
        var proofs = 0
        for size in 1...300 {
            let reader = TileHashReader(treeSize: UInt64(size), fetch: folder.tile)
            commands.append("root \(size) \(Hex.encode(try reader.root()))")
            for index in Set([0, 1, size / 3, size / 2, size - 2, size - 1, 255, 256]) where index >= 0 && index < size {
                commands.append("incl \(index) \(size) \(list(try reader.inclusionProof(index: UInt64(index))))")
                proofs += 1
            }
            for old in Set([1, 2, size / 3, size / 2, size - 1, 128, 255, 256, 257, size]) where old >= 1 && old <= size {
                commands.append("cons \(old) \(size) \(list(try reader.consistencyProof(from: UInt64(old))))")
                proofs += 1
            }
        }
        let result = try GoTlog.run(commands, in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "ok \(commands.count)\n")
        #expect(proofs > 3500)
    }

    /// Go verifies the checkpoint our writer signed, and we verify a note Go signed with our key.
    @Test func goAndWeVerifyEachOthersNotes() throws {
        let dir = TempDirectory("tlog-go-note")
        let origin = TransparencyLogWriterTests.origin
        let signer = try Ed25519NoteSigner(keyName: origin, seed: TransparencyLogWriterTests.seed)
        let appended = try TransparencyLogWriterTests.writer(dir.path).append(testLeaves(5))
        let skey = "PRIVATE+KEY+\(origin)+\(String(format: "%08x", signer.keyID))+" + Data([0x01] + TransparencyLogWriterTests.seed).base64EncodedString()
        let text = "a note Go signs\nfor us to verify\n"
        let result = try GoTlog.run([
            "verify \(signer.verifier.vkey) \(Data(appended.note).base64EncodedString())",
            "sign \(skey) \(Data(text.utf8).base64EncodedString())",
        ], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first == "verified " + Data(appended.checkpoint.text.utf8).base64EncodedString())
        let signed = try #require(lines.dropFirst().first.flatMap { Data(base64Encoded: String($0.dropFirst("signed ".count))) })
        let note = try SignedNote(parsing: [UInt8](signed))
        #expect(note.text == text)
        #expect(try note.verified(by: [signer.verifier]).count == 1)
    }
}

/// Runs tlogcheck.go with Debian's Go and x/mod sources, in GOPATH mode (no module download).
enum GoTlog {
    static let gopath = "/usr/share/gocode"
    static let program = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tlog-interop/tlogcheck.go").path

    static var available: Bool {
        ProcessRunner.has("go") && FileManager.default.fileExists(atPath: gopath + "/src/golang.org/x/mod/sumdb/tlog/tlog.go")
    }

    static func run(_ commands: [String], in dir: TempDirectory) throws -> ProcessResult {
        let input = try dir.write("tlogcheck.txt", commands.joined(separator: "\n") + "\n")
        var environment = ProcessInfo.processInfo.environment
        environment["GO111MODULE"] = "off"
        environment["GOPATH"] = gopath
        environment["GOCACHE"] = dir.url("gocache")
        environment["GOFLAGS"] = ""
        return try ProcessRunner.run("go", ["run", program, input], environment: environment, timeout: 300)
    }
}
