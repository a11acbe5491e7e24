/// A corpus version: one to four dot-separated non-negative integers ("3", "2026.11", "1.2.0"),
/// compared component by component, missing components counting as zero.
public struct CorpusVersion: Hashable, Comparable, Sendable, Codable, CustomStringConvertible, LosslessStringConvertible {
    public let components: [Int]
    public let description: String

    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var comps = [Int]()
        for p in parts {
            guard (1...9).contains(p.count), p.allSatisfy({ $0.isASCII && $0.isNumber }), let v = Int(p) else { return nil }
            comps.append(v)
        }
        components = comps
        description = text
    }

    public static func parse(_ text: String, what: String = "version") throws -> CorpusVersion {
        guard let v = CorpusVersion(text) else {
            throw FormatError.malformed(what: what, reason: "\(text.debugDescription) is not a version like 3 or 1.2.0")
        }
        return v
    }

    public static func < (a: CorpusVersion, b: CorpusVersion) -> Bool {
        for i in 0..<max(a.components.count, b.components.count) {
            let x = i < a.components.count ? a.components[i] : 0
            let y = i < b.components.count ? b.components[i] : 0
            if x != y { return x < y }
        }
        return false
    }

    public static func == (a: CorpusVersion, b: CorpusVersion) -> Bool { a.description == b.description }
    public func hash(into h: inout Hasher) { h.combine(description) }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        guard let v = CorpusVersion(s) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "\(s.debugDescription) is not a version")
        }
        self = v
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
