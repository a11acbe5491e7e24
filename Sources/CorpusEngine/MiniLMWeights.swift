import Foundation

/// The shape of all-MiniLM-L6-v2 (its `config.json`): a 6-layer, 384-wide BERT.
struct MiniLMConfiguration: Sendable {
    var layers = 6
    var hidden = 384
    var heads = 12
    var intermediate = 1536
    var maxPositions = 512
    var vocabularySize = 30522
    var layerNormEpsilon: Float = 1e-12
    var headWidth: Int { hidden / heads }
}

/// The encoder's tensors, pointing into the memory-mapped safetensors file.
///
/// Only the query, key and value projections are copied: into one `[3·hidden × hidden]`
/// matrix per layer, so each layer does one matrix multiply for all three (a bigger
/// multiply keeps both cores busier than three small ones). Everything else is used in place.
///
/// `@unchecked Sendable`: every buffer is written once, in `init`, and only read afterwards.
final class MiniLMWeights: @unchecked Sendable {
    struct Layer {
        let qkvWeight: UnsafePointer<Float>      // [3·hidden × hidden], owned
        let qkvBias: UnsafePointer<Float>        // [3·hidden], owned
        let attentionOutWeight: UnsafePointer<Float>
        let attentionOutBias: UnsafePointer<Float>
        let attentionNormGamma: UnsafePointer<Float>
        let attentionNormBeta: UnsafePointer<Float>
        let intermediateWeight: UnsafePointer<Float>
        let intermediateBias: UnsafePointer<Float>
        let outputWeight: UnsafePointer<Float>
        let outputBias: UnsafePointer<Float>
        let outputNormGamma: UnsafePointer<Float>
        let outputNormBeta: UnsafePointer<Float>
    }

    let configuration: MiniLMConfiguration
    let wordEmbeddings: UnsafePointer<Float>
    let positionEmbeddings: UnsafePointer<Float>
    let tokenTypeEmbeddings: UnsafePointer<Float>
    let embeddingNormGamma: UnsafePointer<Float>
    let embeddingNormBeta: UnsafePointer<Float>
    let layers: [Layer]
    private let file: SafeTensorsFile
    private let fused: UnsafeMutableBufferPointer<Float>

    /// Tensor names carry a prefix depending on how the model was saved: none for a bare
    /// `BertModel`, `bert.` from a task model, `0.auto_model.` from a sentence-transformers pickle.
    static func prefix(in file: SafeTensorsFile) throws -> String {
        let suffix = "embeddings.word_embeddings.weight"
        let candidates = file.tensors.keys.filter { $0.hasSuffix(suffix) }.map { String($0.dropLast(suffix.count)) }
        guard let shortest = candidates.min(by: { $0.count < $1.count }) else {
            throw MiniLMError.missingTensor(name: suffix)
        }
        return shortest
    }

    init(file: SafeTensorsFile, configuration c: MiniLMConfiguration = MiniLMConfiguration()) throws {
        self.file = file
        self.configuration = c
        let prefix = try Self.prefix(in: file)
        func tensor(_ name: String, _ shape: [Int]) throws -> UnsafePointer<Float> {
            let full = prefix + name
            let (values, actual) = try file.floats(full)
            guard actual == shape else { throw MiniLMError.tensorShape(name: full, expected: shape, actual: actual) }
            return values.baseAddress!
        }
        let h = c.hidden
        wordEmbeddings = try tensor("embeddings.word_embeddings.weight", [c.vocabularySize, h])
        positionEmbeddings = try tensor("embeddings.position_embeddings.weight", [c.maxPositions, h])
        tokenTypeEmbeddings = try tensor("embeddings.token_type_embeddings.weight", [2, h])
        embeddingNormGamma = try tensor("embeddings.LayerNorm.weight", [h])
        embeddingNormBeta = try tensor("embeddings.LayerNorm.bias", [h])

        let perLayer = 3 * h * h + 3 * h
        let fused = UnsafeMutableBufferPointer<Float>.allocate(capacity: perLayer * c.layers)
        self.fused = fused
        var layers: [Layer] = []
        do {
            for l in 0..<c.layers {
                let p = "encoder.layer.\(l)."
                let qkvWeight = fused.baseAddress! + l * perLayer
                let qkvBias = qkvWeight + 3 * h * h
                for (i, part) in ["query", "key", "value"].enumerated() {
                    let w = try tensor(p + "attention.self.\(part).weight", [h, h])
                    let b = try tensor(p + "attention.self.\(part).bias", [h])
                    (qkvWeight + i * h * h).update(from: w, count: h * h)
                    (qkvBias + i * h).update(from: b, count: h)
                }
                layers.append(Layer(
                    qkvWeight: UnsafePointer(qkvWeight),
                    qkvBias: UnsafePointer(qkvBias),
                    attentionOutWeight: try tensor(p + "attention.output.dense.weight", [h, h]),
                    attentionOutBias: try tensor(p + "attention.output.dense.bias", [h]),
                    attentionNormGamma: try tensor(p + "attention.output.LayerNorm.weight", [h]),
                    attentionNormBeta: try tensor(p + "attention.output.LayerNorm.bias", [h]),
                    intermediateWeight: try tensor(p + "intermediate.dense.weight", [c.intermediate, h]),
                    intermediateBias: try tensor(p + "intermediate.dense.bias", [c.intermediate]),
                    outputWeight: try tensor(p + "output.dense.weight", [h, c.intermediate]),
                    outputBias: try tensor(p + "output.dense.bias", [h]),
                    outputNormGamma: try tensor(p + "output.LayerNorm.weight", [h]),
                    outputNormBeta: try tensor(p + "output.LayerNorm.bias", [h])))
            }
        } catch {
            fused.deallocate()
            throw error
        }
        self.layers = layers
    }

    deinit {
        fused.deallocate()
    }
}
