/// Text from a catalog, manifest or pack on its way to a terminal: the one place that decides which
/// characters a terminal would act on instead of showing, and how they are shown instead.
///
/// Unsafe are the C0 controls (U+0000–U+001F) except tab and newline, DEL (U+007F), the C1 controls
/// (U+0080–U+009F, which include the single-character CSI U+009B and OSC U+009D), and the bidi
/// embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069 (Trojan Source). Escaping ESC
/// (and the C1 introducers) is enough to defuse every ESC/CSI/OSC sequence: what follows the
/// introducer is printable and stays as it is.
///
/// Renderings, all printable ASCII:
/// - carriage return: `\r`; newline (only in `sanitizeLine`): `\n`
/// - other C0 controls and DEL: `\x` and two lower-case hex digits (ESC is `\x1b`, NUL `\x00`)
/// - C1 controls and bidi controls: `<U+` four upper-case hex digits `>` (`<U+009B>`, `<U+202E>`)
///
/// A backslash is not escaped: a rendering is meant to be harmless and readable, not reversible
/// (a title that literally reads `\x1b` looks like an escaped ESC, and both are harmless).
public enum TerminalText {
    /// True when `s` holds a character `sanitize` would render differently (tab and newline are safe).
    public static func containsUnsafe(_ s: String) -> Bool {
        s.unicodeScalars.contains { isUnsafe($0) }
    }

    /// `s` with every unsafe character rendered visibly; tabs and newlines kept, for multi-line text
    /// such as descriptions.
    public static func sanitize(_ s: String) -> String {
        render(s, keepNewlines: true)
    }

    /// Like `sanitize`, but newlines are escaped too (`\n`), for fields shown on one line: titles,
    /// ids, licenses, paths, error messages.
    public static func sanitizeLine(_ s: String) -> String {
        render(s, keepNewlines: false)
    }

    static func isUnsafe(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x09, 0x0A: return false
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    private static func render(_ s: String, keepNewlines: Bool) -> String {
        // The common case, nothing to escape, returns the string untouched.
        guard s.unicodeScalars.contains(where: { isUnsafe($0) || (!keepNewlines && $0 == "\n") }) else { return s }
        var out = String.UnicodeScalarView()
        for c in s.unicodeScalars {
            switch c.value {
            case 0x0A where !keepNewlines: out.append(contentsOf: #"\n"#.unicodeScalars)
            case 0x0D: out.append(contentsOf: #"\r"#.unicodeScalars)
            case _ where !isUnsafe(c): out.append(c)
            case 0x00...0x1F, 0x7F: out.append(contentsOf: ("\\x" + hex(c.value, digits: 2, upper: false)).unicodeScalars)
            default: out.append(contentsOf: "<U+\(hex(c.value, digits: 4, upper: true))>".unicodeScalars)
            }
        }
        return String(out)
    }

    private static func hex(_ v: UInt32, digits: Int, upper: Bool) -> String {
        let h = String(v, radix: 16, uppercase: upper)
        return String(repeating: "0", count: max(0, digits - h.count)) + h
    }
}
