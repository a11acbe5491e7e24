import Foundation

extension MiniLMEmbedder {
    /// Why a model folder's `config.json` does not describe all-MiniLM-L6-v2, or nil when it does.
    ///
    /// The encoder is built for one shape (`MiniLMConfiguration`); a folder whose configuration
    /// names another (a 768-wide BERT, a 12-layer MiniLM) holds some other model even when its
    /// files are all there. Fields the check does not know are ignored; the ones it knows must be
    /// present and equal, so a configuration that says nothing is not taken for this model either.
    public static func configurationMismatch(_ json: Data) -> String? {
        guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else {
            return "config.json is not a JSON object"
        }
        let c = MiniLMConfiguration()
        if let type = object["model_type"] as? String, type != "bert" {
            return "config.json says model_type \(type.debugDescription), all-MiniLM-L6-v2 is a \"bert\" model"
        }
        let expected: [(String, Int)] = [
            ("hidden_size", c.hidden), ("num_hidden_layers", c.layers), ("num_attention_heads", c.heads),
            ("intermediate_size", c.intermediate), ("vocab_size", c.vocabularySize),
        ]
        for (key, value) in expected {
            guard let given = object[key] as? Int else { return "config.json has no integer \(key)" }
            if given != value { return "config.json says \(key) \(given), all-MiniLM-L6-v2 has \(value)" }
        }
        return nil
    }
}
