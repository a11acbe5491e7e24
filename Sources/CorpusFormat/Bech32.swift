/// Bech32 (BIP 173) as age uses it: no length limit on the data part, all-lowercase or
/// all-uppercase, the checksum over the lowercase string (C2SP age, "Conventions").
enum Bech32 {
    private static let charset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)

    static func encode(humanReadablePart hrp: String, data: [UInt8]) -> String {
        let lowerHRP = hrp.lowercased()
        let values = convertBits(data, from: 8, to: 5, pad: true)!
        let checksum = makeChecksum(hrp: Array(lowerHRP.utf8), values: values)
        let text = lowerHRP + "1" + String(decoding: (values + checksum).map { charset[Int($0)] }, as: UTF8.self)
        return hrp == hrp.uppercased() && hrp != lowerHRP ? text.uppercased() : text
    }

    /// The human-readable part (lowercase) and the data, or nil for anything that is not valid
    /// Bech32: mixed case, a character outside the charset, a bad checksum, bad padding.
    static func decode(_ text: String) -> (humanReadablePart: String, data: [UInt8])? {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ $0 >= 33 && $0 <= 126 }) else { return nil }
        let lower = text.lowercased(), upper = text.uppercased()
        guard text == lower || text == upper else { return nil }
        let lowered = Array(lower.utf8)
        guard let separator = lowered.lastIndex(of: UInt8(ascii: "1")), separator >= 1, lowered.count - separator - 1 >= 6 else { return nil }
        var values: [UInt8] = []
        for c in lowered[(separator + 1)...] {
            guard let v = charset.firstIndex(of: c) else { return nil }
            values.append(UInt8(v))
        }
        let hrp = Array(lowered[..<separator])
        guard polymod(expand(hrp) + values) == 1 else { return nil }
        guard let data = convertBits(Array(values.dropLast(6)), from: 5, to: 8, pad: false) else { return nil }
        return (String(decoding: hrp, as: UTF8.self), data)
    }

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
        var chk: UInt32 = 1
        for v in values {
            let top = chk >> 25
            chk = (chk & 0x1ff_ffff) << 5 ^ UInt32(v)
            for i in 0..<5 where (top >> i) & 1 == 1 { chk ^= generator[i] }
        }
        return chk
    }

    private static func expand(_ hrp: [UInt8]) -> [UInt8] {
        hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
    }

    private static func makeChecksum(hrp: [UInt8], values: [UInt8]) -> [UInt8] {
        let mod = polymod(expand(hrp) + values + [0, 0, 0, 0, 0, 0]) ^ 1
        return (0..<6).map { UInt8((mod >> (5 * (5 - $0))) & 31) }
    }

    /// Regroups bits; nil for non-zero or over-long padding when decoding (BIP 173).
    private static func convertBits(_ data: [UInt8], from: Int, to: Int, pad: Bool) -> [UInt8]? {
        var acc = 0, bits = 0
        var out: [UInt8] = []
        let maxv = (1 << to) - 1
        for value in data {
            acc = (acc << from) | Int(value)
            bits += from
            while bits >= to {
                bits -= to
                out.append(UInt8((acc >> bits) & maxv))
            }
        }
        if pad {
            if bits > 0 { out.append(UInt8((acc << (to - bits)) & maxv)) }
        } else if bits >= from || (acc << (to - bits)) & maxv != 0 {
            return nil
        }
        return out
    }
}
