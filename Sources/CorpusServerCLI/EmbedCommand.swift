import Foundation
import CorpusCLIKit
import CorpusPublisher

/// `corpusd embed --model DIR [--query] [--query-prompt P] [--json] TEXT…`: the parity gate.
///
/// Prints each text's vector as this build's encoder computes it from the model folder, what
/// sentence-transformers' `encode` returns (normalized only when the model has a Normalize
/// module), so a publisher can hold it against their app's own encoder (the knowledge app ships
/// a `golden.json` for this) before publishing corpora whose vectors are kept.
struct EmbedCommand: ServerCommand {
    static let model = Option.path("--model", "DIR", "a BERT-family sentence-transformers model folder (config.json, vocab.txt, model.safetensors, …)").required()
    static let query = Option.flag("--query", "embed the texts as queries: with the model's query prompt")
    static let queryPrompt = Option.text("--query-prompt", "P", "the query prompt of a model whose folder names none (as catalog.json's query_prompt)")
    static let spec = CommandSpec(["embed"], "print each text's vector from a model folder, to compare with another encoder",
                                  positionals: .oneOrMore("TEXT", max: 10_000), options: [model, query, queryPrompt])

    let context: ServerContext

    func run() throws -> Int32 {
        let folder = try cmd.required(Self.model)
        let embedder = try ModelFolder.encoder(folder: folder, prompts: ModelFolder.DeclaredPrompts(query: cmd.value(Self.queryPrompt)))
        let vectors = try embedder.encode(cmd.positionals, query: cmd.has(Self.query))
        if console.json {
            console.emit(Vectors(vectors: vectors))
        } else {
            for v in vectors { console.out(v.map { "\($0)" }.joined(separator: " ")) }
        }
        return 0
    }

    /// `{"vectors": [[…], …]}`, one per text, in order.
    struct Vectors: Encodable {
        let vectors: [[Float]]
    }
}
