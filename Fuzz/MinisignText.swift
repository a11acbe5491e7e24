import Foundation
import CorpusFormat

/// minisign public key and signature parsing (`PublicKey(text:)`, `Signature(text:)`) and
/// verification against the pinned key.
///
/// Properties: parsing never traps; a parsed key or signature written back (`fileText`) parses
/// to the same value; a signature that verifies was made by the fuzz key over the fuzz message.
func fuzzMinisignText(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let mode = input.byte() % 3
    let text = input.restText()
    switch mode {
    case 0:
        guard let key = try? PublicKey(text: text) else { return 0 }
        fuzzAssert((try? PublicKey(text: key.fileText)) == key, "a parsed public key does not survive fileText")
        fuzzAssert((try? PublicKey(base64Line: Substring(key.base64))) == key, "a parsed public key does not survive its base64 line")
    case 1:
        guard let signature = try? Signature(text: text) else { return 0 }
        fuzzAssert((try? Signature(text: signature.fileText)) == signature, "a parsed signature does not survive fileText")
        if (try? FuzzKeys.secret.publicKey.verify(signature, message: MinisignSeeds.message)) != nil {
            fuzzAssert(signature.keyID == FuzzKeys.secret.keyID, "a signature with another key id verified")
        }
    default:
        // Secret key files are the operator's own, but `corpusd` reads them from a path it is given.
        _ = try? SecretKey(text: text)
    }
    return 0
}

func initializeMinisignText(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    FuzzSeeds.writeIfAsked(MinisignSeeds.all)
    return 0
}

enum MinisignSeeds {
    static let message = Data("catalogs/7.json".utf8)

    static func all() throws -> [(String, [UInt8])] {
        let key = FuzzKeys.secret
        let prehashed = try key.sign(message, trustedComment: "catalog:harbour version:7 expires:2026-12-31T00:00:00Z")
        let legacy = try key.signLegacy(message, trustedComment: "legacy")
        return [
            ("public-key", [0] + Array(key.publicKey.fileText.utf8)),
            ("public-key-line", [0] + Array(key.publicKey.base64.utf8)),
            ("signature", [1] + Array(prehashed.fileText.utf8)),
            ("signature-legacy", [1] + Array(legacy.fileText.replacingOccurrences(of: "\n", with: "\r\n").utf8)),
            ("secret-key", [2] + Array(key.fileText.utf8)),
        ]
    }
}
