import Testing
@testable import CorpusEngine
import CorpusTestSupport

@Suite struct FTSQueryTests {
    /// (user text, tokens, any-term expression). Every FTS5 operator character is dropped,
    /// every word is quoted, so the expression only ever contains strings and our own ORs.
    static let cases: [(String, [String], String?)] = [
        ("lighthouse keeper", ["lighthouse", "keeper"], #""lighthouse" OR "keeper""#),
        ("", [], nil),
        ("   \t\n", [], nil),
        ("\"", [], nil),
        ("\"unbalanced quote", ["unbalanced", "quote"], #""unbalanced" OR "quote""#),
        ("say \"hello\" world", ["say", "hello", "world"], #""say" OR "hello" OR "world""#),
        ("cats AND dogs", ["cats", "AND", "dogs"], #""cats" OR "AND" OR "dogs""#),
        ("OR", ["OR"], #""OR""#),
        ("NOT", ["NOT"], #""NOT""#),
        ("a OR b NOT c", ["a", "OR", "b", "NOT", "c"], #""a" OR "OR" OR "b" OR "NOT" OR "c""#),
        ("NEAR(a b, 3)", ["NEAR", "a", "b", "3"], #""NEAR" OR "a" OR "b" OR "3""#),
        ("-excluded +required", ["excluded", "required"], #""excluded" OR "required""#),
        ("prefix*", ["prefix"], #""prefix""#),
        ("*", [], nil),
        ("title:sea", ["title", "sea"], #""title" OR "sea""#),
        ("^start", ["start"], #""start""#),
        ("(unclosed", ["unclosed"], #""unclosed""#),
        ("((a) OR (b))", ["a", "OR", "b"], #""a" OR "OR" OR "b""#),
        ("{title section}: x", ["title", "section", "x"], #""title" OR "section" OR "x""#),
        ("don't", ["don", "t"], #""don" OR "t""#),
        ("e-mail", ["e", "mail"], #""e" OR "mail""#),
        ("Sea sea SEA", ["Sea"], #""Sea""#),
        ("🙂", [], nil),
        ("🙂lighthouse🙂", ["lighthouse"], #""lighthouse""#),
        ("👍🏽 ok", ["ok"], #""ok""#),
        ("🇫🇷 drapeau", ["drapeau"], #""drapeau""#),
        ("1️⃣ one", ["1", "one"], #""1" OR "one""#),
        ("東京 タワー", ["東京", "タワー"], #""東京" OR "タワー""#),
        ("東京タワー", ["東京タワー"], #""東京タワー""#),
        ("Ελληνικά κείμενο", ["Ελληνικά", "κείμενο"], #""Ελληνικά" OR "κείμενο""#),
        ("Привет, мир!", ["Привет", "мир"], #""Привет" OR "мир""#),
        ("नमस्ते दुनिया", ["नमस्ते", "दुनिया"], #""नमस्ते" OR "दुनिया""#),
        ("مرحبا بالعالم", ["مرحبا", "بالعالم"], #""مرحبا" OR "بالعالم""#),
        ("café naïve", ["café", "naïve"], #""café" OR "naïve""#),
        ("v2.0 release_notes", ["v2", "0", "release", "notes"], #""v2" OR "0" OR "release" OR "notes""#),
        ("a\u{0}b", ["a", "b"], #""a" OR "b""#),
        ("semi;colon' OR 1=1 --", ["semi", "colon", "OR", "1"], #""semi" OR "colon" OR "OR" OR "1""#),
        ("back\\slash", ["back", "slash"], #""back" OR "slash""#),
    ]

    @Test(arguments: cases)
    func tokensAndExpression(_ input: String, _ tokens: [String], _ any: String?) {
        #expect(FTSQuery.tokens(input) == tokens)
        #expect(FTSQuery.anyTerm(FTSQuery.tokens(input)) == any)
    }

    @Test func allTermsIsImplicitAnd() {
        #expect(FTSQuery.allTerms(["sea", "OR", "light"]) == #""sea" "OR" "light""#)
        #expect(FTSQuery.allTerms([]) == nil)
    }

    static let relaxed: [([String], String?)] = [
        ([], nil),
        (["a"], nil),
        (["a", "b"], nil),
        (["a", "b", "c"], #"("b" "c") OR ("a" "c") OR ("a" "b")"#),
        (["NOT", "x", "OR"], #"("x" "OR") OR ("NOT" "OR") OR ("NOT" "x")"#),
        ((1...8).map { "t\($0)" }, (1...8).map { skip in "(" + (1...8).filter { $0 != skip }.map { "\"t\($0)\"" }.joined(separator: " ") + ")" }.joined(separator: " OR ")),
        ((1...9).map { "t\($0)" }, nil),
    ]

    @Test(arguments: relaxed)
    func allButOne(_ tokens: [String], _ expected: String?) {
        #expect(FTSQuery.allButOne(tokens) == expected)
    }

    @Test func quoteDoublesInnerQuotes() {
        #expect(FTSQuery.quote(#"a"b"#) == #""a""b""#)
    }

    @Test func tokenCountIsBounded() {
        let many = (0..<100).map { "w\($0)" }.joined(separator: " ")
        #expect(FTSQuery.tokens(many).count == FTSQuery.maxTokens)
        #expect(FTSQuery.tokens(many).first == "w0")
    }

    /// Every case, and some generated garbage, runs as a real MATCH against a real pack without error.
    @Test func noInputIsASyntaxError() throws {
        let home = TempDirectory("fts")
        let folder = try PackFixture(id: "sea", texts: ["a.md": ["The lighthouse keeper rotates the lamp.", "東京タワー is tall"]])
            .install(home: home.path)
        let corpus = try InstalledCorpus(folder: folder, remote: "local")
        var inputs = Self.cases.map(\.0)
        let alphabet = Array("\"'()*:^-+{}[],.;!?AND OR NOT NEAR abc 東🙂\\\u{0}\u{301}\u{200d}")
        var rng = SplitMix64(seed: 7)
        for _ in 0..<300 {
            inputs.append(String((0..<Int(rng.next() % 24)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }))
        }
        for input in inputs {
            #expect(throws: Never.self, "\(input.debugDescription)") {
                _ = try corpus.lexicalSearch(tokens: FTSQuery.tokens(input), limit: 10)
                _ = try corpus.details(rows: [0, 1], tokens: FTSQuery.tokens(input))
            }
        }
        #expect(try corpus.lexicalSearch(tokens: FTSQuery.tokens("🙂"), limit: 10) == [])
        #expect(try corpus.lexicalSearch(tokens: FTSQuery.tokens("東京タワー"), limit: 10) == [1])
        // Porter stemming: "rotating" finds "rotates".
        #expect(try corpus.lexicalSearch(tokens: FTSQuery.tokens("ROTATING lamps"), limit: 10) == [0])
    }

    @Test func snippetMarksMatchedTerms() throws {
        let home = TempDirectory("snippet")
        let folder = try PackFixture(id: "sea", texts: ["a.md": ["The lighthouse keeper rotates the lamp every night."]])
            .install(home: home.path)
        let corpus = try InstalledCorpus(folder: folder, remote: "local")
        let d = try #require(try corpus.details(rows: [0], tokens: ["keeper", "lamp"])[0])
        #expect(d.snippet == "The lighthouse «keeper» rotates the «lamp» every night.")
        // No lexical match: the passage's start, unmarked.
        let plain = try #require(try corpus.details(rows: [0], tokens: ["zebra"])[0])
        #expect(plain.snippet == "The lighthouse keeper rotates the lamp every night.")
    }
}

/// The lexical channel's relaxation ladder on a real pack.
@Suite struct LexicalLadderTests {
    static let texts = ["a.md": [
        "alpha beta gamma",      // 0: all three
        "alpha beta",            // 1: all but one
        "beta gamma delta",      // 2: all but one
        "alpha",                 // 3: one
        "gamma gamma gamma",     // 4: one
        "unrelated words here",  // 5: none
    ]]

    func corpus(_ home: TempDirectory) throws -> InstalledCorpus {
        let folder = try PackFixture(id: "greek", texts: Self.texts).install(home: home.path)
        return try InstalledCorpus(folder: folder, remote: "local")
    }

    @Test func allTermsThenAllButOneButNotAnyTerm() throws {
        let home = TempDirectory("ladder")
        let c = try corpus(home)
        let rows = try c.lexicalSearch(tokens: ["alpha", "beta", "gamma"], limit: 10)
        #expect(rows.first == 0)
        #expect(Set(rows.dropFirst()) == [1, 2])
        // With a limit the full match fills, nothing else runs.
        #expect(try c.lexicalSearch(tokens: ["alpha", "beta", "gamma"], limit: 1) == [0])
    }

    @Test func anyTermOnlyWhenNothingStricterMatched() throws {
        let home = TempDirectory("ladder")
        let c = try corpus(home)
        // "alpha" and "zeta" never occur together: any-term finds the alpha passages.
        #expect(Set(try c.lexicalSearch(tokens: ["alpha", "zeta"], limit: 10)) == [0, 1, 3])
        // No stage matches: nothing, and no error.
        #expect(try c.lexicalSearch(tokens: ["zeta", "omega"], limit: 10) == [])
        // Two of three match nowhere together, one matches: any-term.
        #expect(Set(try c.lexicalSearch(tokens: ["delta", "zeta", "omega"], limit: 10)) == [2])
    }
}
