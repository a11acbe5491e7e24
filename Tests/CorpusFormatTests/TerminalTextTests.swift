import Testing
import CorpusFormat

/// `TerminalText`: which characters a terminal would act on, and how they are shown instead.
@Suite struct TerminalTextTests {
    /// (input, sanitize, sanitizeLine)
    static let cases: [(String, String, String)] = [
        ("plain text", "plain text", "plain text"),
        ("", "", ""),
        ("café — 東京 🌊", "café — 東京 🌊", "café — 東京 🌊"),
        ("tab\tand\nnewline", "tab\tand\nnewline", "tab\tand\\nnewline"),
        ("red \u{1B}[31mALERT\u{1B}[0m", "red \\x1b[31mALERT\\x1b[0m", "red \\x1b[31mALERT\\x1b[0m"),
        ("osc \u{1B}]8;;http://evil/\u{7}link\u{1B}]8;;\u{7}", "osc \\x1b]8;;http://evil/\\x07link\\x1b]8;;\\x07",
         "osc \\x1b]8;;http://evil/\\x07link\\x1b]8;;\\x07"),
        ("nul\u{0}bs\u{8}del\u{7F}", "nul\\x00bs\\x08del\\x7f", "nul\\x00bs\\x08del\\x7f"),
        ("over\rwrite", "over\\rwrite", "over\\rwrite"),
        ("crlf\r\nline", "crlf\\r\nline", "crlf\\r\\nline"),
        ("c1 csi \u{9B}31m and nel \u{85}", "c1 csi <U+009B>31m and nel <U+0085>", "c1 csi <U+009B>31m and nel <U+0085>"),
        ("c1 edges \u{80}\u{9F}", "c1 edges <U+0080><U+009F>", "c1 edges <U+0080><U+009F>"),
        ("access = \u{202E}nimda\u{202C}", "access = <U+202E>nimda<U+202C>", "access = <U+202E>nimda<U+202C>"),
        ("\u{202A}\u{202B}\u{202D}", "<U+202A><U+202B><U+202D>", "<U+202A><U+202B><U+202D>"),
        ("isolates \u{2066}a\u{2067}b\u{2068}c\u{2069}", "isolates <U+2066>a<U+2067>b<U+2068>c<U+2069>",
         "isolates <U+2066>a<U+2067>b<U+2068>c<U+2069>"),
        // Neighbours of the ranges are ordinary characters.
        ("\u{A0}\u{2029}\u{2065}\u{206A}\u{200F}", "\u{A0}\u{2029}\u{2065}\u{206A}\u{200F}", "\u{A0}\u{2029}\u{2065}\u{206A}\u{200F}"),
        // A backslash is left as it is.
        (#"C:\docs\x1b"#, #"C:\docs\x1b"#, #"C:\docs\x1b"#),
    ]

    @Test(arguments: cases)
    func rendersEveryUnsafeCharacterVisibly(input: String, multiLine: String, singleLine: String) {
        #expect(TerminalText.sanitize(input) == multiLine)
        #expect(TerminalText.sanitizeLine(input) == singleLine)
        #expect(TerminalText.containsUnsafe(input) == (multiLine != input))
    }

    @Test func renderingsAreSafeAndPrintable() {
        for v in Array(0...0x2FF) + Array(0x2000...0x206F) {
            guard let c = Unicode.Scalar(v) else { continue }
            let s = "a\(Character(c))b"
            let line = TerminalText.sanitizeLine(s)
            #expect(!TerminalText.containsUnsafe(line), "U+\(String(v, radix: 16)) -> \(line.debugDescription)")
            #expect(!line.contains("\n"))
            #expect(TerminalText.sanitize(line) == line, "sanitizing twice changes nothing")
        }
    }
}
