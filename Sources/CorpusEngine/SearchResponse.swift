import Foundation

/// The wire shape of a search: what `corpus search --json` prints and `GET /v1/search` answers
/// (docs/cli.md), one type so the two cannot drift apart. The remote retriever decodes it.
public struct SearchResponse: WireJSON, Equatable {
    /// `{"code", "message", "hint"}` of a corpus the search skipped.
    public struct Refusal: Codable, Sendable, Equatable {
        public var code, message, hint: String
        public init(code: String, message: String, hint: String) {
            self.code = code
            self.message = message
            self.hint = hint
        }
    }

    public struct Skipped: Codable, Sendable, Equatable {
        public var corpus: String
        public var error: Refusal
        public init(corpus: String, error: Refusal) {
            self.corpus = corpus
            self.error = error
        }
    }

    public struct Entry: Codable, Sendable, Equatable {
        /// Both ranks are always present, `null` when that channel did not find the passage.
        public struct Ranks: Codable, Sendable, Equatable {
            public var lexical: Int?
            public var vector: Int?

            public init(lexical: Int?, vector: Int?) {
                self.lexical = lexical
                self.vector = vector
            }

            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                if let lexical { try c.encode(lexical, forKey: .lexical) } else { try c.encodeNil(forKey: .lexical) }
                if let vector { try c.encode(vector, forKey: .vector) } else { try c.encodeNil(forKey: .vector) }
            }
        }

        public var corpus, catalog, version, document, title, section, text, snippet: String
        public var score: Double
        public var passage: String
        public var ranks: Ranks
        /// Where the hit came from: `local`, or `remote:NAME` for a remote search; absent in the
        /// server's own answer (it is local there).
        public var origin: String?

        public init(_ h: Hit, origin: String? = nil) {
            corpus = h.corpus
            catalog = h.remote
            version = h.version
            document = h.document
            title = h.documentTitle
            section = h.section
            text = h.text
            snippet = h.snippet
            score = h.score
            passage = h.passageID
            ranks = Ranks(lexical: h.lexicalRank, vector: h.vectorRank)
            self.origin = origin
        }

        /// The hit this entry describes, as found in catalog `remote` (a remote search names the
        /// catalog the client knows, not the server's own name for it).
        public func hit(remote: String? = nil) -> Hit {
            Hit(corpus: corpus, remote: remote ?? catalog, version: version, passageID: passage, document: document,
                documentTitle: title, section: section, text: text, snippet: snippet, score: score,
                lexicalRank: ranks.lexical, vectorRank: ranks.vector)
        }
    }

    /// `--budget`: the passages that fit, in rank order (`ContextBudget`).
    public struct Context: Codable, Sendable, Equatable {
        public struct Passage: Codable, Sendable, Equatable {
            public var corpus, document, section, passage, text: String
            public var tokens: Int
            public var trimmed: Bool
        }

        public var budget: Int
        public var used: Int
        public var passages: [Passage]

        public init(budget: Int, fitted: [ContextBudget.Passage], overhead: Int) {
            self.budget = budget
            used = fitted.reduce(0) { $0 + $1.tokens + overhead }
            passages = fitted.map {
                Passage(corpus: $0.hit.corpus, document: $0.hit.document, section: $0.hit.section, passage: $0.hit.passageID,
                        text: $0.text, tokens: $0.tokens, trimmed: $0.trimmed)
            }
        }
    }

    /// `--extract`: sentences of the top passages, each with its citation.
    public struct AnswerSentence: Codable, Sendable, Equatable {
        public var text: String
        public var score: Double
        public var corpus, document, section, passage: String
        /// The rank of the hit it was taken from.
        public var hit: Int

        public init(_ s: ExtractiveAnswer.Sentence) {
            text = s.text
            score = s.score
            corpus = s.hit.corpus
            document = s.hit.document
            section = s.hit.section
            passage = s.hit.passageID
            hit = s.rank
        }
    }

    public var query: String
    public var tookMs: Int
    public var skipped: [Skipped]
    public var hits: [Entry]
    public var context: Context?
    public var answer: [AnswerSentence]?

    public init(query: String, tookMs: Int, skipped: [Skipped], hits: [Entry]) {
        self.query = query
        self.tookMs = tookMs
        self.skipped = skipped
        self.hits = hits
    }

    enum CodingKeys: String, CodingKey {
        case query, skipped, hits, context, answer
        case tookMs = "took_ms"
    }
}
