import Foundation

/// The encoder's tensors: f32 ones point into the memory-mapped safetensors file; f16 and bf16
/// ones are converted to f32 once, here, and the mapping is let go when nothing points into it,
/// so a loaded model holds about its f32 size whatever the file's encoding.
///
/// The query, key and value projections are always copied: into one `[3·hidden × hidden]`
/// matrix per layer, so each layer does one matrix multiply for all three (a bigger
/// multiply keeps both cores busier than three small ones). Everything else is used in place.
///
/// `@unchecked Sendable`: every buffer is written once, in `init`, and only read afterwards.
final class BERTWeights: @unchecked Sendable {
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

    let configuration: BERTConfiguration
    let wordEmbeddings: UnsafePointer<Float>
    let positionEmbeddings: UnsafePointer<Float>
    let tokenTypeEmbeddings: UnsafePointer<Float>
    let embeddingNormGamma: UnsafePointer<Float>
    let embeddingNormBeta: UnsafePointer<Float>
    let layers: [Layer]
    /// Kept only while tensors point into its mapping (an f32 file).
    let file: SafeTensorsFile?
    private let owned: [UnsafeMutableBufferPointer<Float>]

    /// Tensor names carry a prefix depending on how the model was saved: none for a bare
    /// `BertModel`, `bert.` from a task model, `0.auto_model.` from a sentence-transformers pickle.
    static func prefix(in file: SafeTensorsFile) throws -> String {
        let suffix = "embeddings.word_embeddings.weight"
        let candidates = file.tensors.keys.filter { $0.hasSuffix(suffix) }.map { String($0.dropLast(suffix.count)) }
        guard let shortest = candidates.min(by: { $0.count < $1.count }) else {
            throw EncoderError.missingTensor(name: suffix)
        }
        return shortest
    }

    /// Collects the buffers converted from half floats, freed together.
    private final class Converted {
        var buffers: [UnsafeMutableBufferPointer<Float>] = []
        var mapped = false
        func release() { for b in buffers { b.deallocate() } }
    }

    init(file: SafeTensorsFile, configuration c: BERTConfiguration = BERTConfiguration()) throws {
        self.configuration = c
        let prefix = try Self.prefix(in: file)
        let converted = Converted()
        func checked(_ name: String, _ shape: [Int]) throws -> SafeTensorsFile.TensorInfo {
            guard let info = file.tensors[name] else { throw EncoderError.missingTensor(name: name) }
            guard info.shape == shape else { throw EncoderError.tensorShape(name: name, expected: shape, actual: info.shape) }
            return info
        }
        func tensor(_ name: String, _ shape: [Int]) throws -> UnsafePointer<Float> {
            let full = prefix + name
            if try checked(full, shape).dtype == "F32" {
                converted.mapped = true
                return try file.floats(full).values.baseAddress!
            }
            let values = try file.convertedFloats(full).values
            converted.buffers.append(values)
            return UnsafePointer(values.baseAddress!)
        }
        let h = c.hidden
        let perLayer = 3 * h * h + 3 * h
        let fused = UnsafeMutableBufferPointer<Float>.allocate(capacity: perLayer * c.layers)
        converted.buffers.append(fused)
        var layers: [Layer] = []
        do {
            wordEmbeddings = try tensor("embeddings.word_embeddings.weight", [c.vocabularySize, h])
            positionEmbeddings = try tensor("embeddings.position_embeddings.weight", [c.maxPositions, h])
            tokenTypeEmbeddings = try tensor("embeddings.token_type_embeddings.weight", [c.typeVocabularySize, h])
            embeddingNormGamma = try tensor("embeddings.LayerNorm.weight", [h])
            embeddingNormBeta = try tensor("embeddings.LayerNorm.bias", [h])
            for l in 0..<c.layers {
                let p = "encoder.layer.\(l)."
                let qkvWeight = fused.baseAddress! + l * perLayer
                let qkvBias = qkvWeight + 3 * h * h
                for (i, part) in ["query", "key", "value"].enumerated() {
                    let w = prefix + p + "attention.self.\(part).weight", b = prefix + p + "attention.self.\(part).bias"
                    _ = try (checked(w, [h, h]), checked(b, [h]))
                    try file.copyFloats(w, into: qkvWeight + i * h * h)
                    try file.copyFloats(b, into: qkvBias + i * h)
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
            converted.release()
            throw error
        }
        self.layers = layers
        self.owned = converted.buffers
        self.file = converted.mapped ? file : nil
    }

    deinit {
        for b in owned { b.deallocate() }
    }
}
