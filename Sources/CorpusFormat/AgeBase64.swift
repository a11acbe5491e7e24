import Foundation

/// The base64 of age headers: standard alphabet, no `=` padding, canonical only (C2SP age,
/// "Conventions": decoders MUST reject non-canonical encodings and padding).
enum AgeBase64 {
    static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// The bytes, or nil for padding, a character outside the alphabet or a non-canonical form
    /// (unused low bits set).
    static func decode(_ text: Substring) -> [UInt8]? {
        guard text.utf8.allSatisfy(isAlphabet) else { return nil }
        guard text.utf8.count % 4 != 1 else { return nil }
        let padded = String(text) + String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: padded) else { return nil }
        let bytes = [UInt8](data)
        // Foundation ignores set bits past the last byte; re-encoding shows them.
        guard encode(bytes) == text else { return nil }
        return bytes
    }

    static func isAlphabet(_ c: UInt8) -> Bool {
        (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == 43 || c == 47
    }
}
