import Foundation

/// A JSON value from a model folder's configuration files (`config.json`, `tokenizer.json`, …),
/// which may hold floats (so not `JSONValue`), decoded strictly so that `true` is never taken
/// for 1 nor 1 for `true`.
enum ModelJSON: Decodable, Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ModelJSON])
    case object([String: ModelJSON])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null; return }
        if let b = try? c.decode(Bool.self) { self = .bool(b); return }
        if let d = try? c.decode(Double.self) { self = .number(d); return }
        if let s = try? c.decode(String.self) { self = .string(s); return }
        if let a = try? c.decode([ModelJSON].self) { self = .array(a); return }
        self = .object(try c.decode([String: ModelJSON].self))
    }

    subscript(key: String) -> ModelJSON? {
        if case let .object(o) = self { return o[key] }
        return nil
    }

    var string: String? { if case let .string(s) = self { return s }; return nil }
    var bool: Bool? { if case let .bool(b) = self { return b }; return nil }
    var isNull: Bool { self == .null }
    var integer: Int? {
        guard case let .number(d) = self, d.rounded() == d, d.magnitude < 1e15 else { return nil }
        return Int(d)
    }
    var number: Double? { if case let .number(d) = self { return d }; return nil }

    /// The value as it would appear in the file, shortened, for a one-line refusal.
    var shown: String {
        switch self {
        case .null: return "null"
        case let .bool(b): return "\(b)"
        case let .number(d): return integer.map(String.init) ?? "\(d)"
        case let .string(s): return String(s.prefix(60)).debugDescription
        case .array: return "a list"
        case .object: return "an object"
        }
    }
}

/// Reading the configuration files of a model folder.
enum ModelFile {
    /// Configuration files are small; a larger one is not a configuration (`tokenizer.json` with
    /// its vocabulary runs to a few MB).
    static let limit = 32 << 20

    /// The JSON object in `data`, or `EncoderError.invalidSetting` naming `file`.
    static func object(_ data: Data, file: String) throws -> ModelJSON {
        guard let value = try? JSONDecoder().decode(ModelJSON.self, from: data), case .object = value else {
            throw EncoderError.invalidSetting(file: file, reason: "it is not a JSON object")
        }
        return value
    }

    /// The JSON in `folder/name`, nil when there is no such file.
    static func read(_ folder: URL, _ name: String, array: Bool = false) throws -> ModelJSON? {
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let data = try? Data(contentsOf: url), data.count <= limit else {
            throw EncoderError.invalidSetting(file: name, reason: "it cannot be read, or is over 32 MiB")
        }
        guard let value = try? JSONDecoder().decode(ModelJSON.self, from: data) else {
            throw EncoderError.invalidSetting(file: name, reason: "it is not JSON")
        }
        switch (value, array) {
        case (.object, false), (.array, true): return value
        default: throw EncoderError.invalidSetting(file: name, reason: array ? "it is not a JSON list" : "it is not a JSON object")
        }
    }
}
