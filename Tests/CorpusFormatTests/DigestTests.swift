import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

@Suite struct DigestTests {
    @Test func sha256KnownAnswers() {
        #expect(SHA256.hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func blake2b512KnownAnswer() {
        let d = Digest(.blake2b512)
        d.update(Data("abc".utf8))
        #expect(Hex.encode(d.finalize()) == "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
    }

    @Test func streamingEqualsOneShotAndOpenSSL() throws {
        let dir = TempDirectory("digest")
        // 3 MiB + 7 bytes: several 1 MiB chunks and a ragged tail.
        let bytes = (0..<(3 << 20) + 7).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        let path = try dir.write("blob", Data(bytes))

        let streamed = try SHA256.hash(fileAt: path)
        #expect(streamed.size == Int64(bytes.count))
        #expect(streamed.digest == SHA256.hash(bytes))

        let pieces = Digest(.sha256)
        var i = 0
        for n in [1, 63, 64, 65, 4096, 1 << 20] where i < bytes.count {
            pieces.update(bytes[i..<min(i + n, bytes.count)].withUnsafeBytes { Array($0) })
            i += n
        }
        pieces.update(Array(bytes[i...]))
        #expect(pieces.finalize() == streamed.digest)

        let r = try ProcessRunner.run("openssl", ["dgst", "-sha256", "-r", path])
        #expect(r.status == 0)
        #expect(r.stdout.split(separator: " ").first.map(String.init) == Hex.encode(streamed.digest))
    }
}
