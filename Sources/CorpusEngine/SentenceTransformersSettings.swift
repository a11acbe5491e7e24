import CorpusFormat
import Foundation

/// Reads `EncoderSettings` from a model folder the way sentence-transformers and Hugging Face
/// read it:
///
/// - pooling and normalization from `modules.json` (Transformer, Pooling, optional Normalize)
///   and the Pooling module's `config.json` (`1_Pooling/config.json`): CLS or mean;
/// - the longest input from `sentence_bert_config.json`'s `max_seq_length`, else the tokenizer's
///   `model_max_length` capped by the position table;
/// - the tokenizer from `tokenizer.json` when there is one (what the fast tokenizer loads), else
///   `tokenizer_config.json`; `strip_accents: null` follows `lowercase`;
/// - prompts from `config_sentence_transformers.json`'s `prompts`: `query`, and `document` (or
///   `passage`, or the `default_prompt_name` one) for passages.
///
/// A folder without `modules.json` is not a sentence-transformers model; it is read the way this
/// project always read one (mean pooling, 256 tokens, `EncoderSettings.meanPooledUncased`) with
/// its tokenizer's settings. Keys not listed are ignored; a listed key with a value the encoder
/// cannot honour is refused by name (`EncoderError.unsupportedSetting`).
public enum SentenceTransformersSettings {
    public static func read(folder: URL, configuration: BERTConfiguration) throws -> EncoderSettings {
        var settings = EncoderSettings.meanPooledUncased
        let modules = try ModelFile.read(folder, "modules.json", array: true)
        if let modules {
            (settings.pooling, settings.normalize) = try pooling(modules, folder: folder)
        }
        try tokenizer(folder, into: &settings)

        let sentenceBert = try ModelFile.read(folder, "sentence_bert_config.json")
        let modelMax = try ModelFile.read(folder, "tokenizer_config.json")?["model_max_length"]?.integer
        if let given = sentenceBert?["max_seq_length"] {
            guard let n = given.integer else {
                throw EncoderError.invalidSetting(file: "sentence_bert_config.json", reason: "max_seq_length \(given.shown) is not an integer")
            }
            settings.maxTokens = n
        } else if modules != nil {
            settings.maxTokens = min(modelMax ?? configuration.maxPositions, configuration.maxPositions)
        }
        guard (2...configuration.maxPositions).contains(settings.maxTokens) else {
            throw EncoderError.unsupportedSetting(file: "sentence_bert_config.json", key: "max_seq_length", value: "\(settings.maxTokens)",
                                                  supported: "2 to max_position_embeddings, \(configuration.maxPositions)")
        }
        if sentenceBert?["do_lower_case"]?.bool == true, !settings.lowercase {
            throw EncoderError.unsupportedSetting(file: "sentence_bert_config.json", key: "do_lower_case", value: "true",
                                                  supported: "lower-casing only where the tokenizer lower-cases")
        }

        let sentenceTransformers = try ModelFile.read(folder, "config_sentence_transformers.json")
        if let prompts = sentenceTransformers?["prompts"] {
            guard case let .object(table) = prompts, table.values.allSatisfy({ $0.string != nil }) else {
                throw EncoderError.invalidSetting(file: "config_sentence_transformers.json", reason: "prompts is not an object of strings")
            }
            let defaultName = sentenceTransformers?["default_prompt_name"]?.string
            settings.queryPrompt = table["query"]?.string ?? ""
            settings.passagePrompt = (table["document"] ?? table["passage"] ?? defaultName.flatMap { table[$0] })?.string ?? ""
        }
        return settings
    }

    /// CLS or mean pooling, and whether a Normalize module follows.
    static func pooling(_ modules: ModelJSON, folder: URL) throws -> (EncoderSettings.Pooling, Bool) {
        guard case let .array(entries) = modules else { throw EncoderError.invalidSetting(file: "modules.json", reason: "it is not a JSON list") }
        let prefix = "sentence_transformers.models."
        var poolingPath: String?
        var normalize = false
        for (index, entry) in entries.enumerated() {
            let type = entry["type"]?.string ?? ""
            let kind = type.hasPrefix(prefix) ? String(type.dropFirst(prefix.count)) : type
            switch (kind, index) {
            case ("Transformer", 0):
                if let path = entry["path"]?.string, !path.isEmpty {
                    throw EncoderError.unsupportedSetting(file: "modules.json", key: "path", value: path.debugDescription,
                                                          supported: "a Transformer module in the folder itself, path \"\"")
                }
            case ("Pooling", 1):
                poolingPath = entry["path"]?.string ?? ""
            case ("Normalize", 2):
                normalize = true
            default:
                throw EncoderError.unsupportedSetting(file: "modules.json", key: "type", value: (entry["type"] ?? .null).shown,
                                                      supported: "Transformer, then Pooling, then optionally Normalize")
            }
        }
        guard let poolingPath, !poolingPath.contains(".."), !poolingPath.hasPrefix("/") else {
            throw EncoderError.invalidSetting(file: "modules.json", reason: "it has no Pooling module in its own folder")
        }
        let file = poolingPath.isEmpty ? "config.json" : "\(poolingPath)/config.json"
        guard let config = try ModelFile.read(folder, file) else {
            throw EncoderError.invalidSetting(file: file, reason: "the Pooling module's configuration is missing")
        }
        var modes: [String] = []
        if let mode = config["pooling_mode"]?.string { modes.append(mode) }
        for key in ["cls_token", "mean_tokens", "max_tokens", "mean_sqrt_len_tokens", "weightedmean_tokens", "lasttoken"]
        where config["pooling_mode_\(key)"]?.bool == true {
            modes.append(key == "cls_token" ? "cls" : key == "mean_tokens" ? "mean" : "pooling_mode_\(key)")
        }
        let unique = Array(Set(modes))
        guard unique.count == 1, let pooling = EncoderSettings.Pooling(rawValue: unique[0]) else {
            throw EncoderError.unsupportedSetting(file: file, key: "pooling_mode", value: unique.isEmpty ? "none" : unique.sorted().joined(separator: " + "),
                                                  supported: "exactly one of cls and mean")
        }
        if pooling == .mean, config["include_prompt"]?.bool == false {
            throw EncoderError.unsupportedSetting(file: file, key: "include_prompt", value: "false", supported: "true with mean pooling")
        }
        return (pooling, normalize)
    }

    /// Lower-casing, accent stripping and CJK splitting, refusing a tokenizer that is not BERT's WordPiece.
    static func tokenizer(_ folder: URL, into settings: inout EncoderSettings) throws {
        func unsupported(_ file: String, _ key: String, _ value: ModelJSON?, _ supported: String) -> EncoderError {
            .unsupportedSetting(file: file, key: key, value: (value ?? .null).shown, supported: supported)
        }
        let config = try ModelFile.read(folder, "tokenizer_config.json")
        for (key, token) in [("cls_token", "[CLS]"), ("sep_token", "[SEP]"), ("unk_token", "[UNK]")] {
            guard let value = config?[key] else { continue }
            if (value.string ?? value["content"]?.string) != token { throw unsupported("tokenizer_config.json", key, value, "\"\(token)\"") }
        }
        var stripAccents: ModelJSON = .null
        if let json = try ModelFile.read(folder, "tokenizer.json") {
            let file = "tokenizer.json"
            let normalizer = json["normalizer"] ?? .null
            guard normalizer["type"]?.string == "BertNormalizer" else { throw unsupported(file, "normalizer.type", normalizer["type"], "\"BertNormalizer\"") }
            if normalizer["clean_text"]?.bool == false { throw unsupported(file, "normalizer.clean_text", normalizer["clean_text"], "true") }
            let preTokenizer = json["pre_tokenizer"]?["type"]
            guard preTokenizer?.string == "BertPreTokenizer" else { throw unsupported(file, "pre_tokenizer.type", preTokenizer, "\"BertPreTokenizer\"") }
            let model = json["model"] ?? .null
            guard model["type"]?.string == "WordPiece" else { throw unsupported(file, "model.type", model["type"], "\"WordPiece\"") }
            if let prefix = model["continuing_subword_prefix"], prefix.string != "##" {
                throw unsupported(file, "model.continuing_subword_prefix", prefix, "\"##\"")
            }
            if let longest = model["max_input_chars_per_word"], longest.integer != WordPieceTokenizer.maxCharactersPerWord {
                throw unsupported(file, "model.max_input_chars_per_word", longest, "\(WordPieceTokenizer.maxCharactersPerWord)")
            }
            settings.lowercase = normalizer["lowercase"]?.bool ?? true
            settings.chineseCharacters = normalizer["handle_chinese_chars"]?.bool ?? true
            stripAccents = normalizer["strip_accents"] ?? .null
        } else if let config {
            let file = "tokenizer_config.json"
            if let type = config["tokenizer_class"], !["BertTokenizer", "BertTokenizerFast"].contains(type.string ?? "") {
                throw unsupported(file, "tokenizer_class", type, "\"BertTokenizer\"")
            }
            if config["do_basic_tokenize"]?.bool == false { throw unsupported(file, "do_basic_tokenize", config["do_basic_tokenize"], "true") }
            settings.lowercase = config["do_lower_case"]?.bool ?? true
            settings.chineseCharacters = config["tokenize_chinese_chars"]?.bool ?? true
            stripAccents = config["strip_accents"] ?? .null
        }
        // Hugging Face: an unset strip_accents follows lowercase.
        settings.stripAccents = stripAccents.bool ?? settings.lowercase
    }
}
