import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// Walks every root-rotation vector (`Tests/Fixtures/root-rotations/`: python-tuf's key-rotation
/// matrix, rust-tuf's threshold cases, this project's own) through the pure rule, `RootRoles.parse`
/// then `RootLink.verify` link by link, and the expiry of the newest root (TUF 5.3.10), and checks
/// each vector's outcome and its precise refusal.
@Suite struct RootRotationVectorTests {
    static let vectors: [RootRotationVector] = (try? RootRotationVector.all()) ?? []
    /// A fixed walk time: documents are dated around it.
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    /// What walking a chain came to: the newest root whose link verified, and the refusal, if any.
    struct Walk {
        var trusted = 0
        var refusal: (at: Int, error: any Error)?
    }

    /// The newest root expired and nothing newer was offered (TUF 5.3.10).
    struct NewestRootExpired: Error {}

    /// Walks the chain from root 1; `offered` picks the signature files shown for each document.
    static func walk(_ chain: [RootRotationVector.PublishedRoot],
                     offered: (RootRotationVector.PublishedRoot, RootRoles, RootRoles?) -> [Data]) -> Walk {
        var walk = Walk()
        var previous: RootRoles?
        for root in chain {
            do {
                let next = try RootRoles.parse(root.json, what: root.path)
                try RootLink.verify(next, json: root.json, signatures: offered(root, next, previous), previous: previous)
                previous = next
                walk.trusted = next.version
            } catch {
                walk.refusal = (root.position, error)
                return walk
            }
        }
        if let newest = previous, newest.hasExpired(at: now) { walk.refusal = (chain.count, NewestRootExpired()) }
        return walk
    }

    /// Every signature file the vector wrote, whatever its name.
    static func everyFile(_ root: RootRotationVector.PublishedRoot, _: RootRoles, _: RootRoles?) -> [Data] {
        root.signatures.map(\.data)
    }

    /// Only the files a client fetches: those `RootLink.signaturePaths` names.
    static func clientFiles(_ root: RootRotationVector.PublishedRoot, _ next: RootRoles, _ previous: RootRoles?) -> [Data] {
        let byPath = Dictionary(root.signatures.map { ($0.path, $0.data) }, uniquingKeysWith: { first, _ in first })
        return RootLink.signaturePaths(of: next, previous: previous).compactMap { byPath[$0] }
    }

    /// True when `error` is exactly the refusal `reason` names for the document at `position`.
    static func matches(_ reason: RootRotationVector.Reason, _ error: any Error, position: Int) throws -> Bool {
        let refusal = error as? RootLink.Refusal
        let format = error as? FormatError
        switch reason {
        case let .thresholdNotMet(keysOf, valid, threshold, missing):
            let ids = try missing.map { try RootRotationVector.keyID(named: $0).description }
            return refusal == .thresholdNotMet(keysOf: keysOf, valid: valid, threshold: threshold, missing: ids)
        case let .wrongVersion(expected, found): return refusal == .wrongVersion(expected: expected, found: found)
        case let .formatDowngrade(from, to): return refusal == .formatDowngrade(from: from, to: to)
        case .signatureMissing:
            return format == .signatureMissing(file: TreeLayout.rootKeyPath(version: position) + TreeLayout.signatureSuffix)
        case let .untrustedKey(name): return format == .untrustedKey(keyID: try RootRotationVector.keyID(named: name).description)
        case .signatureInvalid: return format == .signatureInvalid(what: "the signed file")
        case .malformed: if case .malformed = format { return true } else { return false }
        case .unsupported: if case .unsupported = format { return true } else { return false }
        case .expired: return error is NewestRootExpired
        }
    }

    static func check(_ vector: RootRotationVector, _ walk: Walk) throws {
        let expect = vector.expect
        #expect(walk.trusted == expect.trusted, "\(vector): trusted root \(walk.trusted), expected \(expect.trusted)")
        if expect.accepts {
            #expect(walk.refusal == nil, "\(vector): refused at \(walk.refusal?.at ?? 0): \(String(describing: walk.refusal?.error))")
            return
        }
        let reason = try #require(expect.reason, "\(vector): a refusal names its reason")
        let refusal = try #require(walk.refusal, "\(vector): accepted, expected refusal at \(expect.at ?? 0) (\(reason))")
        #expect(refusal.at == expect.at, "\(vector): refused at \(refusal.at), expected at \(expect.at ?? 0)")
        #expect(try matches(reason, refusal.error, position: refusal.at), "\(vector): refused with \(refusal.error), expected \(reason)")
    }

    @Test func theDataFilesLoadAndHoldTheMatrix() throws {
        for file in RootRotationVector.files {
            let vectors = try RootRotationVector.load(file)
            #expect(!vectors.isEmpty, "\(file) holds vectors")
            for v in vectors {
                #expect(v.expect.accepts == (v.expect.reason == nil && v.expect.at == nil), "\(v): accept has no reason, refuse has one")
                #expect(!v.expect.why.isEmpty, "\(v) says why")
            }
        }
        let all = try RootRotationVector.all()
        #expect(all.count == Self.vectors.count)
        #expect(Set(all.map(\.description)).count == all.count, "vector names are unique within a file")
        // python-tuf's root_rotation_cases has 15 cases; every one is transcribed.
        #expect(try RootRotationVector.load("python-tuf-key-rotations.json").count == 15)
    }

    @Test func aNamesKeyIsTheOneTheReadmeDerives() throws {
        // Known answers computed apart from this code (Python's `cryptography`: seed = SHA-256(name),
        // key id = SHA-256(seed)[0..<8]), so the data files keep meaning the same keys.
        #expect(try RootRotationVector.key(named: "key0").publicKey.base64 == "RWT8i1hMjXFmo205ZOX8A58/3cqcpGhew1IUyKLKevKLPsbk13w2Wqft")
        #expect(try RootRotationVector.keyID(named: "key0").description == "A366718D4C588BFC")
        #expect(try RootRotationVector.key(named: "holder-a").publicKey.base64 == "RWRyV+QCRWWtI4Y3MQKlhWdm3nKuLfnIm1+jC2UNto1pGXBncwB8zR3X")
    }

    @Test func theRealMinisignChecksEachHoldersSignatureByHand() throws {
        // Issue 28: each signature is a separate minisign file, so `minisign -V` checks any one.
        let vector = try #require(Self.vectors.first { $0.name == "3-of-5, all keys rotated, with intermediate step" })
        let tree = TempDirectory("vector-minisign")
        let chain = try vector.writeTree(into: tree, catalogID: "vectors", now: Date())
        let root2 = chain[1]
        #expect(root2.signatures.count == 6)
        for (index, file) in root2.signatures.enumerated() {
            let signer = try #require(ThresholdSignatures.signer(of: file.data))
            let pub = try tree.write("pub/\(signer).pub", vector.secretKey(signer).publicKey.fileText)
            let r = try ProcessRunner.run("/usr/bin/minisign", ["-V", "-m", tree.url(root2.path), "-x", tree.url(file.path), "-p", pub], stdin: Data())
            #expect(r.status == 0, "\(file.path): \(r.stderr)")
            #expect(r.stdout.contains("Trusted comment: root:2 signer:\(signer)"), "\(r.stdout)")
            // Another holder's key does not check it.
            let other = try #require(ThresholdSignatures.signer(of: root2.signatures[(index + 1) % root2.signatures.count].data))
            let otherPub = try tree.write("pub/\(other).pub", vector.secretKey(other).publicKey.fileText)
            #expect(try ProcessRunner.run("/usr/bin/minisign", ["-V", "-m", tree.url(root2.path), "-x", tree.url(file.path), "-p", otherPub],
                                          stdin: Data()).status != 0)
        }
    }

    @Test(arguments: vectors)
    func eachVectorWalksToItsOutcome(_ vector: RootRotationVector) throws {
        let chain = try vector.publish(now: Self.now)
        try Self.check(vector, Self.walk(chain, offered: Self.everyFile))
    }

    @Test(arguments: vectors)
    func theFilesAClientFetchesGiveTheSameOutcome(_ vector: RootRotationVector) throws {
        let chain = try vector.publish(now: Self.now)
        try Self.check(vector, Self.walk(chain, offered: Self.clientFiles))
    }
}
