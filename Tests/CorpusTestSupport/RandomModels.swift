import Foundation

/// Random-weight BERT models in the shapes of bge-small-en-v1.5 and snowflake-arctic-embed-m-v1.5,
/// each in f32, f16 and bf16, with the NumPy reference's vectors for the golden texts
/// (`scripts/bert_reference.py make`; how and why in Tests/Fixtures/README.md).
///
/// They are too large to commit (the 768-wide f32 model is 440 MB), so the first test that needs
/// them generates them under `.build/random-models/` (about 1.2 GB, a few minutes on two cores),
/// and later runs reuse them. They need MiniLM's `vocab.txt` (scripts/fetch-model.sh) and
/// Debian's python3-numpy.
public enum RandomModels {
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let directory = packageRoot.appendingPathComponent(".build/random-models").path
    static let vocabulary = packageRoot.appendingPathComponent("models/all-MiniLM-L6-v2/vocab.txt").path
    static let golden = packageRoot.appendingPathComponent("Tests/Fixtures/minilm-golden.json").path
    public static let script = packageRoot.appendingPathComponent("scripts/bert_reference.py").path
    public static let python = "/usr/bin/python3"

    public enum Shape: String, CaseIterable, Sendable {
        case bgeSmall = "bge-small"
        case arcticEmbedM = "arctic-embed-m"

        public var id: String { self == .bgeSmall ? "bge-small-en-v1.5" : "snowflake-arctic-embed-m-v1.5" }
        public var dimension: Int { self == .bgeSmall ? 384 : 768 }
    }

    public enum Encoding: String, CaseIterable, Sendable { case f32, f16, bf16 }

    /// Whether the models can be made here: MiniLM's vocabulary and NumPy are present.
    public static var available: Bool {
        FileManager.default.fileExists(atPath: vocabulary)
            && (try? ProcessRunner.run(python, ["-c", "import numpy"]))?.status == 0
    }
    public static let absentMessage = "random-weight models need models/all-MiniLM-L6-v2/vocab.txt (scripts/fetch-model.sh) and python3-numpy"

    /// Generated once per test process (the script skips what a former run left).
    private static let made = Result<Void, Error> {
        let r = try ProcessRunner.run(python, [script, "make", "--out", directory, "--vocab", vocabulary, "--golden", golden], timeout: 1800)
        guard r.status == 0 else { throw MakeFailed(stderr: r.stderr) }
    }

    struct MakeFailed: Error, CustomStringConvertible {
        let stderr: String
        var description: String { "scripts/bert_reference.py make failed: \(stderr)" }
    }

    /// The model folder of one shape and encoding, generated if need be.
    public static func folder(_ shape: Shape, _ encoding: Encoding) throws -> String {
        try made.get()
        return "\(directory)/\(shape.rawValue)-\(encoding.rawValue)"
    }

    public struct Row: Decodable, Sendable {
        public let text: String
        public let ids: [Int32]
        public let vector: [Float]
        public let query_ids: [Int32]
        public let query_vector: [Float]
    }

    public struct Reference: Decodable, Sendable {
        public let model: String
        public let max_tokens: Int
        public let query_prompt: String
        /// False for bge-small, whose folder names no prompt: the publisher declares it.
        public let query_prompt_in_folder: Bool
        public let rows: [Row]
    }

    /// The NumPy reference's ids and vectors for one model.
    public static func reference(_ shape: Shape, _ encoding: Encoding) throws -> Reference {
        let path = try folder(shape, encoding) + ".reference.json"
        return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    public static func cosine(_ a: [Float], _ b: [Float]) -> Double {
        var dot = 0.0, na = 0.0, nb = 0.0
        for i in a.indices {
            dot += Double(a[i]) * Double(b[i])
            na += Double(a[i]) * Double(a[i])
            nb += Double(b[i]) * Double(b[i])
        }
        return dot / (na.squareRoot() * nb.squareRoot())
    }
}
