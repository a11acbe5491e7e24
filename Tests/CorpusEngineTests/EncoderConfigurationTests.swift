import CorpusFormat
import CorpusTestSupport
import Foundation
import Testing
@testable import CorpusEngine

/// Reading a model folder's configuration the way Hugging Face and sentence-transformers read it,
/// and refusing, by name, a supported key whose value the encoder cannot honour.
@Suite struct EncoderConfigurationTests {
    static let miniLMConfig = #"{"architectures": ["BertModel"], "hidden_act": "gelu", "hidden_size": 384, "intermediate_size": 1536, "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "bert", "num_attention_heads": 12, "num_hidden_layers": 6, "position_embedding_type": "absolute", "type_vocab_size": 2, "vocab_size": 30522}"#
    static let miniLMFiles: [String: String] = [
        "config.json": miniLMConfig,
        "tokenizer_config.json": #"{"do_lower_case": true, "unk_token": "[UNK]", "sep_token": "[SEP]", "cls_token": "[CLS]", "tokenize_chinese_chars": true, "strip_accents": null, "tokenizer_class": "BertTokenizer", "model_max_length": 512}"#,
        "sentence_bert_config.json": #"{"max_seq_length": 256, "do_lower_case": false}"#,
        "config_sentence_transformers.json": #"{"__version__": {"sentence_transformers": "2.0.0"}}"#,
        "modules.json": #"[{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}, {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}, {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]"#,
        "1_Pooling/config.json": #"{"word_embedding_dimension": 384, "pooling_mode_cls_token": false, "pooling_mode_mean_tokens": true, "pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false}"#,
    ]

    static func folder(_ files: [String: String], _ dir: TempDirectory = TempDirectory("encoder-config")) throws -> TempDirectory {
        for (name, text) in files { _ = try dir.write(name, text) }
        return dir
    }

    static func settings(_ files: [String: String]) throws -> EncoderSettings {
        let dir = try folder(files)
        let url = URL(fileURLWithPath: dir.path)
        let configuration = try BERTConfiguration(json: Data(files["config.json"]!.utf8))
        return try SentenceTransformersSettings.read(folder: url, configuration: configuration)
    }

    /// MiniLM's own files read as the settings artifacts without settings mean, so its manifest
    /// (and so its digest, which every published MiniLM corpus names) is what it always was.
    @Test func miniLMsFilesReadAsTheSettingsOfTodaysArtifacts() throws {
        #expect(try Self.settings(Self.miniLMFiles) == .meanPooledUncased)
        let manifest = EmbedderManifest(id: "all-MiniLM-L6-v2", dimension: 384, files: [:], encoder: .meanPooledUncased)
        #expect(manifest.encoder == nil)
        let bytes = String(decoding: try manifest.canonicalBytes(), as: UTF8.self)
        #expect(!bytes.contains("encoder"))
        #expect(try BERTConfiguration(json: Data(Self.miniLMConfig.utf8)) == BERTConfiguration())
    }

    /// CLS pooling, the query prompt from `config_sentence_transformers.json`, the length from
    /// `sentence_bert_config.json`; a cased tokenizer keeps accents when strip_accents is null.
    @Test func aCLSPooledModelWithPromptsAndACasedTokenizer() throws {
        var files = Self.miniLMFiles
        files["1_Pooling/config.json"] = #"{"word_embedding_dimension": 384, "pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}"#
        files["config_sentence_transformers.json"] = #"{"prompts": {"query": "query: ", "document": ""}, "default_prompt_name": null}"#
        files["sentence_bert_config.json"] = #"{"max_seq_length": 512, "do_lower_case": false}"#
        files["tokenizer_config.json"] = #"{"do_lower_case": false, "strip_accents": null, "tokenize_chinese_chars": false}"#
        files["modules.json"] = #"[{"path": "", "type": "sentence_transformers.models.Transformer"}, {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]"#
        let s = try Self.settings(files)
        #expect(s == EncoderSettings(pooling: .cls, normalize: false, maxTokens: 512, lowercase: false, stripAccents: false,
                                     chineseCharacters: false, queryPrompt: "query: ", passagePrompt: ""))
    }

    /// tokenizer.json, when present, is what the fast tokenizer reads: it wins over tokenizer_config.json.
    @Test func tokenizerJSONWinsOverTokenizerConfig() throws {
        var files = Self.miniLMFiles
        files["tokenizer.json"] = "{\"normalizer\": {\"type\": \"BertNormalizer\", \"clean_text\": true, \"handle_chinese_chars\": true, \"strip_accents\": true, \"lowercase\": false}, \"pre_tokenizer\": {\"type\": \"BertPreTokenizer\"}, \"model\": {\"type\": \"WordPiece\", \"unk_token\": \"[UNK]\", \"continuing_subword_prefix\": \"##\", \"max_input_chars_per_word\": 100, \"vocab\": {}}}"
        let s = try Self.settings(files)
        #expect(!s.lowercase && s.stripAccents)
    }

    static let refusals: [(String, String, String, EncoderError)] = [
        ("config.json", miniLMConfig.replacingOccurrences(of: #""gelu""#, with: #""relu""#), "hidden_act",
         .unsupportedSetting(file: "config.json", key: "hidden_act", value: #""relu""#, supported: #""gelu""#)),
        ("config.json", miniLMConfig.replacingOccurrences(of: #""absolute""#, with: #""relative_key""#), "position_embedding_type",
         .unsupportedSetting(file: "config.json", key: "position_embedding_type", value: #""relative_key""#, supported: #""absolute""#)),
        ("config.json", miniLMConfig.replacingOccurrences(of: #""model_type": "bert""#, with: #""model_type": "roberta""#), "model_type",
         .unsupportedSetting(file: "config.json", key: "model_type", value: #""roberta""#, supported: #""bert""#)),
        ("config.json", miniLMConfig.replacingOccurrences(of: #""num_attention_heads": 12"#, with: #""num_attention_heads": 7"#), "heads",
         .invalidSetting(file: "config.json", reason: "hidden_size 384 is not a multiple of num_attention_heads 7")),
        ("config.json", miniLMConfig.replacingOccurrences(of: #""hidden_size": 384,"#, with: ""), "no hidden_size",
         .invalidSetting(file: "config.json", reason: "it has no integer hidden_size")),
        ("1_Pooling/config.json", #"{"pooling_mode_cls_token": false, "pooling_mode_mean_tokens": false, "pooling_mode_max_tokens": true}"#, "max pooling",
         .unsupportedSetting(file: "1_Pooling/config.json", key: "pooling_mode", value: "pooling_mode_max_tokens", supported: "exactly one of cls and mean")),
        ("1_Pooling/config.json", #"{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true}"#, "two poolings",
         .unsupportedSetting(file: "1_Pooling/config.json", key: "pooling_mode", value: "cls + mean", supported: "exactly one of cls and mean")),
        ("1_Pooling/config.json", #"{"pooling_mode": "lasttoken"}"#, "last token",
         .unsupportedSetting(file: "1_Pooling/config.json", key: "pooling_mode", value: "lasttoken", supported: "exactly one of cls and mean")),
        ("1_Pooling/config.json", #"{"pooling_mode_mean_tokens": true, "include_prompt": false}"#, "include_prompt",
         .unsupportedSetting(file: "1_Pooling/config.json", key: "include_prompt", value: "false", supported: "true with mean pooling")),
        ("modules.json", #"[{"path": "", "type": "sentence_transformers.models.Transformer"}, {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}, {"path": "2_Dense", "type": "sentence_transformers.models.Dense"}]"#, "dense",
         .unsupportedSetting(file: "modules.json", key: "type", value: #""sentence_transformers.models.Dense""#, supported: "Transformer, then Pooling, then optionally Normalize")),
        ("sentence_bert_config.json", #"{"max_seq_length": 1024}"#, "too long",
         .unsupportedSetting(file: "sentence_bert_config.json", key: "max_seq_length", value: "1024", supported: "2 to max_position_embeddings, 512")),
        ("tokenizer_config.json", #"{"tokenizer_class": "XLMRobertaTokenizer"}"#, "tokenizer class",
         .unsupportedSetting(file: "tokenizer_config.json", key: "tokenizer_class", value: #""XLMRobertaTokenizer""#, supported: #""BertTokenizer""#)),
        ("tokenizer_config.json", #"{"cls_token": {"content": "<s>"}}"#, "cls token",
         .unsupportedSetting(file: "tokenizer_config.json", key: "cls_token", value: "an object", supported: #""[CLS]""#)),
        ("tokenizer.json", #"{"normalizer": {"type": "Sequence"}, "pre_tokenizer": {"type": "BertPreTokenizer"}, "model": {"type": "WordPiece"}}"#, "normalizer",
         .unsupportedSetting(file: "tokenizer.json", key: "normalizer.type", value: #""Sequence""#, supported: #""BertNormalizer""#)),
        ("tokenizer.json", #"{"normalizer": {"type": "BertNormalizer"}, "pre_tokenizer": {"type": "BertPreTokenizer"}, "model": {"type": "Unigram"}}"#, "model",
         .unsupportedSetting(file: "tokenizer.json", key: "model.type", value: #""Unigram""#, supported: #""WordPiece""#)),
        ("config_sentence_transformers.json", #"{"prompts": {"query": 3}}"#, "prompts",
         .invalidSetting(file: "config_sentence_transformers.json", reason: "prompts is not an object of strings")),
    ]

    /// Every refusal is one line naming the file and key, and reading leaves the folder as it was.
    @Test(arguments: refusals.indices)
    func aValueTheEncoderCannotHonourIsRefusedByName(_ index: Int) throws {
        let (file, text, label, expected) = Self.refusals[index]
        var files = Self.miniLMFiles
        files[file] = text
        let dir = try Self.folder(files)
        let before = DirectorySnapshot(dir.path)
        let error = #expect(throws: EncoderError.self, "\(label)") {
            let configuration = try BERTConfiguration(json: Data(files["config.json"]!.utf8))
            _ = try SentenceTransformersSettings.read(folder: URL(fileURLWithPath: dir.path), configuration: configuration)
        }
        #expect(error == expected, "\(label)")
        #expect(!"\(error.map { "\($0)" } ?? "")".contains("\n"))
        #expect(DirectorySnapshot(dir.path) == before)
    }

    /// f16 and bf16 values widen exactly, subnormals and infinities included.
    @Test func halfFloatsWidenExactly() {
        let f16: [(UInt16, Float)] = [(0x3C00, 1), (0xC000, -2), (0x0001, 0x1p-24), (0x03FF, 1023 * 0x1p-24), (0x7BFF, 65504),
                                      (0x7C00, .infinity), (0x8000, -0.0), (0x3555, 0.333251953125)]
        for (bits, value) in f16 { #expect(HalfFloat.f16(bits) == value, "\(bits)") }
        #expect(HalfFloat.f16(0x7E00).isNaN)
        let bf16: [(UInt16, Float)] = [(0x3F80, 1), (0xC000, -2), (0x3EAB, 0.333984375), (0x7F80, .infinity)]
        for (bits, value) in bf16 { #expect(HalfFloat.bf16(bits) == value, "\(bits)") }
    }
}
