/// What a `Range` header asks of a file of known size (RFC 9110 §14).
///
/// The server honours exactly one range per request. Several ranges (`bytes=0-1,5-9`) are
/// answered with the whole file and 200, as RFC 9110 §14.2 allows ("a server MAY ignore the
/// Range header field"): multipart/byteranges buys clients nothing here and many or overlapping
/// ranges are a known amplification attack (CVE-2011-3192). A header that does not parse is
/// ignored the same way.
public enum RangeDecision: Equatable, Sendable {
    /// No usable range: send the whole file with 200.
    case full
    /// Send bytes `offset ..< offset + length` with 206.
    case partial(offset: Int64, length: Int64)
    /// The range starts past the end: 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    public static func parse(_ header: String?, size: Int64) -> RangeDecision {
        guard let header else { return .full }
        let bytes = Array(header.utf8)
        guard bytes.count <= 1024 else { return .full }
        // `bytes=` with the unit compared case-insensitively, optional whitespace around specs.
        guard bytes.count > 6, String(decoding: bytes[0..<6], as: UTF8.self).lowercased() == "bytes=" else { return .full }
        let specs = bytes[6...].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .map { Array(Array($0.drop { $0 == 0x20 || $0 == 0x09 }.reversed()).drop { $0 == 0x20 || $0 == 0x09 }.reversed()) }
        guard specs.count == 1, let spec = specs.first, !spec.isEmpty else { return .full }
        guard let dash = spec.firstIndex(of: UInt8(ascii: "-")) else { return .full }
        let first = Array(spec[..<dash]), last = Array(spec[(dash + 1)...])

        if first.isEmpty {
            // Suffix range `-N`: the last N bytes. `-0` can never be satisfied.
            guard let n = number(last) else { return .full }
            guard n > 0, size > 0 else { return .unsatisfiable }
            let length = min(n, size)
            return .partial(offset: size - length, length: length)
        }
        guard let start = number(first) else { return .full }
        var end = size - 1
        if !last.isEmpty {
            guard let e = number(last) else { return .full }
            // `5-3` is syntactically invalid, so the header is ignored rather than refused.
            guard e >= start else { return .full }
            end = min(e, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .partial(offset: start, length: end - start + 1)
    }

    /// Decimal digits only; values past Int64 clamp to Int64.max (they are past any file's end).
    private static func number(_ digits: [UInt8]) -> Int64? {
        guard !digits.isEmpty, digits.count <= 64 else { return nil }
        var v: Int64 = 0
        for d in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(d - UInt8(ascii: "0")))
            if o1 || o2 { v = .max } else { v = s }
        }
        return v
    }
}
