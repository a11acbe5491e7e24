/// The characters a bearer token may hold, checked before any token goes into a request.
///
/// An entitlement token is a compact JWS: base64url segments joined by dots (RFC 7515 §7.1, the
/// alphabet of RFC 4648 §5). Anything else in a token given on the command line, in the
/// environment or in the home folder (a CR or LF that would start a header of its own, ESC, BEL,
/// DEL, a space) was never part of a token: it is refused where the token is read, and the
/// refusal never shows the token.
public enum TokenSyntax {
    public enum Problem: Equatable, Sendable, CustomStringConvertible {
        case empty
        /// A C0 control character or DEL at this byte offset (0-based).
        case controlCharacter(offset: Int)
        /// Another byte outside base64url and `.` at this offset.
        case foreignCharacter(offset: Int)

        public var description: String {
            switch self {
            case .empty: return "it is empty"
            case let .controlCharacter(offset): return "it holds a control character at byte \(offset)"
            case let .foreignCharacter(offset): return "it holds a character other than A-Z a-z 0-9 - _ and . at byte \(offset)"
            }
        }
    }

    /// Why `token` cannot be a token; nil when its characters are those of one.
    public static func problem(_ token: String) -> Problem? {
        if token.isEmpty { return .empty }
        for (i, b) in token.utf8.enumerated() {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                continue
            case 0..<0x20, 0x7F:
                return .controlCharacter(offset: i)
            default:
                return .foreignCharacter(offset: i)
            }
        }
        return nil
    }
}
