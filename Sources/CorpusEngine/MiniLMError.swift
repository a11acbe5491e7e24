import Foundation

/// Why the MiniLM embedder could not be set up from a model folder.
public enum MiniLMError: Error, Equatable, Sendable {
    /// A model file is absent: the weights are fetched by `scripts/fetch-model.sh`, not shipped.
    case modelMissing(directory: String, file: String)
    case invalidVocabulary(reason: String)
    /// Token ids given to `embed(tokenized:)` that the model cannot take.
    case invalidTokens(reason: String)
    case missingTensor(name: String)
    case tensorShape(name: String, expected: [Int], actual: [Int])
    /// OpenBLAS, loaded when a model is first used, is not installed.
    case blasMissing(tried: [String])
}

extension MiniLMError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case let .modelMissing(directory, file):
            return "all-MiniLM-L6-v2 model file \(file) not found in \(directory); run scripts/fetch-model.sh to fetch the model"
        case let .invalidVocabulary(reason):
            return "the MiniLM vocabulary is invalid: \(reason)"
        case let .invalidTokens(reason):
            return "token ids for MiniLM are invalid: \(reason)"
        case let .missingTensor(name):
            return "the MiniLM weights have no tensor \(name)"
        case let .tensorShape(name, expected, actual):
            return "MiniLM tensor \(name) has shape \(actual), expected \(expected)"
        case let .blasMissing(tried):
            return "the MiniLM embedder needs OpenBLAS, and none of \(tried.joined(separator: ", ")) could be loaded; install Debian's libopenblas0"
        }
    }
    public var errorDescription: String? { description }
}
