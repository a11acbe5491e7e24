import Foundation

/// Why a BERT-family sentence encoder could not be set up from a model folder, or could not encode.
public enum EncoderError: Error, Equatable, Sendable {
    /// A model file is absent: the weights are fetched (`scripts/fetch-model.sh` for
    /// all-MiniLM-L6-v2), not shipped.
    case modelMissing(directory: String, file: String)
    case invalidVocabulary(reason: String)
    /// Token ids given to `embed(tokenized:)` that the model cannot take.
    case invalidTokens(reason: String)
    case missingTensor(name: String)
    case tensorShape(name: String, expected: [Int], actual: [Int])
    /// OpenBLAS, loaded when a model is first used, is not installed.
    case blasMissing(tried: [String])
    /// A setting the encoder reads holds a value it cannot honour (another activation, position
    /// embedding type, pooling, tokenizer): refused by name rather than guessed.
    case unsupportedSetting(file: String, key: String, value: String, supported: String)
    /// A model file the encoder reads is not what its format says (not JSON, a missing integer).
    case invalidSetting(file: String, reason: String)
}

extension EncoderError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case let .modelMissing(directory, file):
            return "model file \(file) not found in \(directory); for all-MiniLM-L6-v2, run scripts/fetch-model.sh to fetch the model"
        case let .invalidVocabulary(reason):
            return "the model's vocabulary is invalid: \(reason)"
        case let .invalidTokens(reason):
            return "token ids for the encoder are invalid: \(reason)"
        case let .missingTensor(name):
            return "the model's weights have no tensor \(name)"
        case let .tensorShape(name, expected, actual):
            return "tensor \(name) has shape \(actual), expected \(expected)"
        case let .blasMissing(tried):
            return "the sentence encoder needs OpenBLAS, and none of \(tried.joined(separator: ", ")) could be loaded; install Debian's libopenblas0"
        case let .unsupportedSetting(file, key, value, supported):
            return "\(file) says \(key) \(value), which this encoder cannot honour (it supports \(supported))"
        case let .invalidSetting(file, reason):
            return "\(file): \(reason)"
        }
    }
    public var errorDescription: String? { description }
}
