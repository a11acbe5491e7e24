import Foundation

/// Finds an object member name that appears twice in one JSON object, at any depth.
///
/// RFC 8259 §4 leaves duplicate names to each reader ("the behavior … is unpredictable"), and
/// Foundation's `JSONDecoder` silently keeps one of them, so two readers of one signed document —
/// a token or a catalog — could act on two different values (RFC 7515 §4 and RFC 7519 §4 require
/// unique names for exactly this reason). Names are compared after unescaping, as Swift strings,
/// which is how the decoder matches them to properties: `"exp"`, `"\u0065xp"` are one name.
///
/// This is a scanner, not a second parser: text that is not JSON is left for the real decoder to
/// refuse with its own message.
enum JSONDuplicateKeys {
    enum Finding: Equatable {
        case unique
        /// The dotted path of the second occurrence (`corpora.0.id`), in the form refusals use.
        case duplicate(String)
        /// Nested deeper than `maxDepth`: refused rather than scanned without bound.
        case tooDeep
        /// Not JSON; the decoder reports why.
        case invalid
    }

    static let maxDepth = 256

    static func scan(_ data: Data) -> Finding {
        data.withUnsafeBytes { raw in
            var scanner = Scanner(bytes: raw.bindMemory(to: UInt8.self))
            return scanner.document()
        }
    }

    private struct Failure: Error {
        let finding: Finding
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0
        var path: [String] = []

        mutating func document() -> Finding {
            do {
                try value(depth: 0)
                return .unique
            } catch {
                return error.finding
            }
        }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        }

        mutating func value(depth: Int) throws(Failure) {
            guard depth <= JSONDuplicateKeys.maxDepth else { throw Failure(finding: .tooDeep) }
            skipSpace()
            guard i < bytes.count else { throw Failure(finding: .invalid) }
            switch bytes[i] {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): _ = try string()
            default:
                // A number or a literal: its bytes never hold a name, so skip to the next delimiter.
                let start = i
                while i < bytes.count, !Self.isDelimiter(bytes[i]) { i += 1 }
                guard i > start else { throw Failure(finding: .invalid) }
            }
        }

        static func isDelimiter(_ b: UInt8) -> Bool {
            b == UInt8(ascii: ",") || b == UInt8(ascii: "]") || b == UInt8(ascii: "}") || b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
        }

        mutating func expect(_ c: UInt8) throws(Failure) {
            skipSpace()
            guard i < bytes.count, bytes[i] == c else { throw Failure(finding: .invalid) }
            i += 1
        }

        /// True (and consumed) when the next byte is `c`.
        mutating func take(_ c: UInt8) -> Bool {
            skipSpace()
            guard i < bytes.count, bytes[i] == c else { return false }
            i += 1
            return true
        }

        mutating func object(depth: Int) throws(Failure) {
            i += 1
            var names = Set<String>()
            if take(UInt8(ascii: "}")) { return }
            repeat {
                skipSpace()
                let name = try string()
                path.append(name)
                guard names.insert(name).inserted else { throw Failure(finding: .duplicate(path.joined(separator: "."))) }
                try expect(UInt8(ascii: ":"))
                try value(depth: depth + 1)
                path.removeLast()
            } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
        }

        mutating func array(depth: Int) throws(Failure) {
            i += 1
            if take(UInt8(ascii: "]")) { return }
            var n = 0
            repeat {
                path.append(String(n))
                try value(depth: depth + 1)
                path.removeLast()
                n += 1
            } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"))
        }

        /// A string token, unescaped (RFC 8259 §7).
        mutating func string() throws(Failure) -> String {
            guard let s = JSONStringLiteral.read(bytes, at: &i) else { throw Failure(finding: .invalid) }
            return s
        }
    }
}

extension CanonicalJSON {
    /// The dotted path of the first object member name that appears twice in its object, or nil.
    /// See `JSONDuplicateKeys`.
    public static func duplicateKey(in bytes: [UInt8]) -> String? {
        if case let .duplicate(path) = JSONDuplicateKeys.scan(Data(bytes)) { return path }
        return nil
    }

    /// Why a document that is to be decoded must be refused before decoding: a duplicate name, or
    /// nesting too deep to check. nil when the decoder may have it.
    static func uniquenessRefusal(_ data: Data) -> String? {
        switch JSONDuplicateKeys.scan(data) {
        case let .duplicate(path):
            // The names come from the document: shown escaped and cut short.
            return "duplicate key \((path.count > 80 ? String(path.prefix(80)) + "…" : path).debugDescription)"
        case .tooDeep: return "a value nested more than \(JSONDuplicateKeys.maxDepth) levels deep"
        case .unique, .invalid: return nil
        }
    }
}
