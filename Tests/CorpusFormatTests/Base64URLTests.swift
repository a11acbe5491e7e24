import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// base64url (RFC 4648 §5, unpadded as RFC 7515 §2 uses it), written out in `Base64URL`; checked
/// against the RFC's vectors and against Foundation's base64 coder with the alphabet swapped.
@Suite struct Base64URLTests {
    /// RFC 4648 §10, padding removed.
    @Test(arguments: [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")])
    func rfc4648Vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    /// The two characters where base64url differs from base64.
    @Test func urlAlphabet() {
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xfb, 0xff, 0xbf])
    }

    @Test(arguments: ["Zg==", "Zm8=", "Z+8", "Z/8", "Zm 9v", "Zm9v\n", "Z", "Zm9vY", "é"])
    func refusals(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    /// Random bytes of every length up to 64: the same text as Foundation's encoder gives.
    @Test func encodeMatchesFoundation() {
        var rng = SplitMix64(seed: 4648)
        for length in 0...64 {
            for _ in 0..<40 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
                #expect(Base64URL.encode(bytes) == Self.foundationEncode(bytes))
            }
        }
    }

    /// Random texts over the alphabet and a few stray bytes: accepted and decoded exactly when
    /// Foundation's decoder (after the alphabet swap and re-padding) accepts and decodes them.
    @Test func decodeMatchesFoundation() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let strays = Array("=+/ .\n".utf8) + [0x00, 0x80, 0xff]
        var rng = SplitMix64(seed: 8037)
        var accepted = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...13, using: &rng)
            let text: [UInt8] = (0..<length).map { _ in
                Int.random(in: 0..<100, using: &rng) < 3 ? strays.randomElement(using: &rng)! : alphabet.randomElement(using: &rng)!
            }
            let ours = Base64URL.decode(text)
            #expect(ours == Self.foundationDecode(text), "\(text)")
            if ours != nil { accepted += 1 }
        }
        #expect(accepted > 10_000)
    }

    static func foundationEncode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The decoder `Base64URL` had before it was written out.
    static func foundationDecode(_ text: [UInt8]) -> [UInt8]? {
        var s = [UInt8]()
        for c in text {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): s.append(c)
            case UInt8(ascii: "-"): s.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): s.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        guard s.count % 4 != 1 else { return nil }
        while s.count % 4 != 0 { s.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(s)).map { [UInt8]($0) }
    }
}
