import Foundation

/// Counts the keys of one role that signed a document: each signature is a separate minisign
/// file, and a key counts once however many of its signatures are offered (a copied signature
/// file does not count twice).
public enum ThresholdSignatures {
    /// The distinct key ids among `allowed` whose signature over `message` verifies. Signatures by
    /// other keys, unreadable files and invalid signatures simply do not count.
    public static func validSigners(_ signatures: [Data], message: Data, allowed: [KeyID], keys: [KeyID: PublicKey]) -> Set<KeyID> {
        var signers = Set<KeyID>()
        for data in signatures {
            guard let text = String(data: data, encoding: .utf8), let signature = try? Signature(text: text),
                  allowed.contains(signature.keyID), !signers.contains(signature.keyID),
                  let key = keys[signature.keyID], (try? key.verify(signature, message: message)) != nil else { continue }
            signers.insert(signature.keyID)
        }
        return signers
    }

    /// The key id a signature file names, or nil when it is not a readable signature.
    public static func signer(of signature: Data) -> KeyID? {
        guard let text = String(data: signature, encoding: .utf8) else { return nil }
        return (try? Signature(text: text))?.keyID
    }
}
