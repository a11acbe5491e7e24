import Foundation

/// The shape of a BERT encoder, as its `config.json` gives it (Hugging Face `BertConfig`).
///
/// Keys the encoder does not use (dropout, `architectures`, versions) are ignored. The ones it
/// uses must be there (the sizes) or default as `BertConfig` does (the rest); a value it cannot
/// run (another activation or position embedding, a model type other than BERT) is refused with
/// `EncoderError.unsupportedSetting` naming the key, never guessed.
public struct BERTConfiguration: Hashable, Sendable {
    public var layers: Int
    public var hidden: Int
    public var heads: Int
    public var intermediate: Int
    public var maxPositions: Int
    public var vocabularySize: Int
    public var typeVocabularySize: Int
    public var layerNormEpsilon: Float
    var headWidth: Int { hidden / heads }

    public init(layers: Int = 6, hidden: Int = 384, heads: Int = 12, intermediate: Int = 1536, maxPositions: Int = 512,
                vocabularySize: Int = 30522, typeVocabularySize: Int = 2, layerNormEpsilon: Float = 1e-12) {
        self.layers = layers
        self.hidden = hidden
        self.heads = heads
        self.intermediate = intermediate
        self.maxPositions = maxPositions
        self.vocabularySize = vocabularySize
        self.typeVocabularySize = typeVocabularySize
        self.layerNormEpsilon = layerNormEpsilon
    }

    static let file = "config.json"

    /// Reads `config.json`.
    public init(json: Data) throws {
        try self.init(object: try ModelFile.object(json, file: Self.file))
    }

    init(object: ModelJSON) throws {
        func unsupported(_ key: String, _ supported: String) -> EncoderError {
            .unsupportedSetting(file: Self.file, key: key, value: object[key]?.shown ?? "nothing", supported: supported)
        }
        func size(_ key: String, default value: Int? = nil, in range: ClosedRange<Int>) throws -> Int {
            guard let given = object[key] ?? value.map({ ModelJSON.number(Double($0)) }) else {
                throw EncoderError.invalidSetting(file: Self.file, reason: "it has no integer \(key)")
            }
            guard let n = given.integer, range.contains(n) else {
                throw EncoderError.invalidSetting(file: Self.file, reason: "\(key) \(given.shown) is not an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return n
        }
        if let type = object["model_type"], type.string != "bert" { throw unsupported("model_type", "\"bert\"") }
        if let act = object["hidden_act"], act.string != "gelu" { throw unsupported("hidden_act", "\"gelu\"") }
        if let position = object["position_embedding_type"], position.string != "absolute" {
            throw unsupported("position_embedding_type", "\"absolute\"")
        }
        hidden = try size("hidden_size", in: 1...4096)
        layers = try size("num_hidden_layers", in: 1...128)
        heads = try size("num_attention_heads", in: 1...hidden)
        guard hidden % heads == 0 else {
            throw EncoderError.invalidSetting(file: Self.file, reason: "hidden_size \(hidden) is not a multiple of num_attention_heads \(heads)")
        }
        intermediate = try size("intermediate_size", in: 1...65536)
        vocabularySize = try size("vocab_size", in: 1...(1 << 21))
        maxPositions = try size("max_position_embeddings", default: 512, in: 2...8192)
        typeVocabularySize = try size("type_vocab_size", default: 2, in: 1...16)
        if let eps = object["layer_norm_eps"] {
            guard let value = eps.number, value > 0, value < 1 else {
                throw EncoderError.invalidSetting(file: Self.file, reason: "layer_norm_eps \(eps.shown) is not a small positive number")
            }
            layerNormEpsilon = Float(value)
        } else {
            layerNormEpsilon = 1e-12
        }
    }
}
