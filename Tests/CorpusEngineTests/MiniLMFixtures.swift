import Foundation
@testable import CorpusEngine

/// Where the MiniLM tests find the model (fetched by scripts/fetch-model.sh) and the golden
/// vectors computed by sentence-transformers (`Tests/Fixtures/minilm-golden.json`; its origin is in
/// `Tests/Fixtures/README.md`).
enum MiniLMFixtures {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let modelDirectory = packageRoot.appendingPathComponent("models/all-MiniLM-L6-v2")
    static let goldenPath = packageRoot.appendingPathComponent("Tests/Fixtures/minilm-golden.json").path

    static var modelAvailable: Bool {
        FileManager.default.fileExists(atPath: modelDirectory.appendingPathComponent("model.safetensors").path)
    }
    static let modelAbsentMessage = "models/all-MiniLM-L6-v2 is absent: run scripts/fetch-model.sh (make test does)"

    struct GoldenRow: Decodable, Sendable {
        let text: String
        let ids: [Int32]
        let vector: [Float]
    }

    struct Golden: Decodable, Sendable {
        let model: String
        let max_tokens: Int
        let rows: [GoldenRow]
    }

    struct GoldenMissing: Error, CustomStringConvertible {
        let path: String
        var description: String { "golden file \(path) is missing from the checkout" }
    }

    static func golden() throws -> Golden {
        guard let data = FileManager.default.contents(atPath: goldenPath) else { throw GoldenMissing(path: goldenPath) }
        return try JSONDecoder().decode(Golden.self, from: data)
    }

    /// Loaded once for the whole test run; a load failure is reported by the tests that use it.
    static let loaded = Result { try BERTEmbedder(modelDirectory: modelDirectory, id: MiniLMEmbedder.identifier) }
    static func embedder() throws -> BERTEmbedder { try loaded.get() }

    static func cosine(_ a: [Float], _ b: [Float]) -> Float {
        var dot: Float = 0, na: Float = 0, nb: Float = 0
        for i in a.indices {
            dot += a[i] * b[i]
            na += a[i] * a[i]
            nb += b[i] * b[i]
        }
        return dot / (na.squareRoot() * nb.squareRoot())
    }
}
