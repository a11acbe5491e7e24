import CorpusFormat

/// The sentence encoders this project names by id, with the shape each id stands for.
///
/// Any BERT-family model folder loads (`BERTEmbedder`); an id listed here is also checked
/// against its shape, so a folder of another model is not published under a known model's name.
/// Adding a model is a row here (docs/engine.md, "Adding a model").
public struct KnownEncoder: Hashable, Sendable {
    public var id: String
    public var hidden: Int
    public var layers: Int
    public var pooling: EncoderSettings.Pooling

    public static let miniLM = KnownEncoder(id: "all-MiniLM-L6-v2", hidden: 384, layers: 6, pooling: .mean)
    /// The knowledge app's model; its query instruction is not in its folder, the catalog declares it.
    public static let bgeSmall = KnownEncoder(id: "bge-small-en-v1.5", hidden: 384, layers: 12, pooling: .cls)
    /// The reader app's model.
    public static let arcticEmbedM = KnownEncoder(id: "snowflake-arctic-embed-m-v1.5", hidden: 768, layers: 12, pooling: .cls)

    public static let all = [miniLM, bgeSmall, arcticEmbedM]

    public static func named(_ id: String) -> KnownEncoder? { all.first { $0.id == id } }

    /// Why a model of this configuration and these settings is not the one `id` names, or nil
    /// when it is; checked before the weights are read.
    public func mismatch(_ c: BERTConfiguration, _ settings: EncoderSettings) -> String? {
        if c.hidden != hidden { return "config.json says hidden_size \(c.hidden), \(id) has \(hidden)" }
        if c.layers != layers { return "config.json says num_hidden_layers \(c.layers), \(id) has \(layers)" }
        if settings.pooling != pooling { return "its pooling is \(settings.pooling.rawValue), \(id) pools with \(pooling.rawValue)" }
        return nil
    }
}

/// The id of all-MiniLM-L6-v2, the model the project's first corpora were embedded with.
public enum MiniLMEmbedder {
    public static let identifier = KnownEncoder.miniLM.id
}
