import Foundation

/// HMAC-SHA256 (RFC 2104) through the crypto seam, for AWS Signature Version 4 signing keys and
/// signatures.
public enum HMACSHA256 {
    public static func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        PlatformCrypto.hmacSHA256(key: key, message: message)
    }

    public static func authenticate(key: [UInt8], message: String) -> [UInt8] {
        authenticate(key: key, message: Array(message.utf8))
    }
}
