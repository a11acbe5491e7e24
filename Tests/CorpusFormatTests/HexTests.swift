import Foundation
import Testing
import CorpusFormat

@Test func hexRoundTrip() {
    #expect(Hex.encode([0x00, 0xab, 0xff]) == "00abff")
    #expect(Hex.decode("00ABff") == [0x00, 0xab, 0xff])
    #expect(Hex.decode("0") == nil)
    #expect(Hex.decode("zz") == nil)
}

/// Known answers for every byte, in both cases, against the C library's `%02x` / `%02X`: the
/// access log's and SigV4's `%XX` and canonical JSON's `\u00XX` are written by `Hex.append`.
@Test func hexAppendsEveryByteInEitherCase() {
    for b in UInt8.min...UInt8.max {
        var lower: [UInt8] = [UInt8(ascii: "%")]
        Hex.append(b, to: &lower)
        #expect(String(decoding: lower, as: UTF8.self) == "%" + String(format: "%02x", b))
        var upper: [UInt8] = []
        Hex.append(b, uppercase: true, to: &upper)
        #expect(String(decoding: upper, as: UTF8.self) == String(format: "%02X", b))
        #expect(Hex.digitValue(upper[0]).map { $0 << 4 | Hex.digitValue(upper[1])! } == b)
    }
    #expect(Hex.encode([0x00, 0x0a, 0xab, 0xff], uppercase: true) == "000AABFF")
    // A sequence without contiguous storage takes the other path to the same text.
    #expect(Hex.encode([0x01, 0xfe].reversed()) == "fe01")
    #expect(Hex.encode([UInt8]()) == "")
}

@Test func hexLowerDigitsAreExactlyTheOnesEncodeWrites() {
    let lower = Set("0123456789abcdef".utf8)
    for b in UInt8.min...UInt8.max {
        #expect(Hex.isLowerDigit(b) == lower.contains(b), "byte \(b)")
    }
}
