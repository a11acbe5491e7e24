import Foundation
internal import CCrypto

/// HMAC-SHA256 (RFC 2104) through OpenSSL, for AWS Signature Version 4 signing keys and
/// signatures. The corresponding C function is `HMAC` with `EVP_sha256`.
public enum HMACSHA256 {
    public static func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer { o in
                    // A zero-length key or message still needs a valid pointer for OpenSSL.
                    HMAC(EVP_sha256(), k.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(k.count),
                         m.baseAddress ?? UnsafePointer(bitPattern: 1), m.count, o.baseAddress, &length) != nil
                }
            }
        }
        // Only an allocation failure makes a one-shot HMAC over a built-in digest fail.
        precondition(ok && length == 32, "HMAC-SHA256 failed")
        return out
    }

    public static func authenticate(key: [UInt8], message: String) -> [UInt8] {
        authenticate(key: key, message: Array(message.utf8))
    }
}
