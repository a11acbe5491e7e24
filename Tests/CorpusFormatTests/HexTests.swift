import Testing
import CorpusFormat

@Test func hexRoundTrip() {
    #expect(Hex.encode([0x00, 0xab, 0xff]) == "00abff")
    #expect(Hex.decode("00ABff") == [0x00, 0xab, 0xff])
    #expect(Hex.decode("0") == nil)
    #expect(Hex.decode("zz") == nil)
}
