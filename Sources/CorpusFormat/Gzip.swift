import Foundation
internal import CZlib

/// Whole-buffer gzip (RFC 1952) for catalog parts, which are small and read whole.
///
/// The corresponding C functions are zlib's `deflate` and `inflate` with windowBits 15 + 16.
/// Compression is deterministic for one zlib build and level (mtime 0, no file name), so a part
/// whose content did not change keeps its bytes and its content-addressed name.
public enum Gzip {
    /// The level parts are written with: zlib's best, since a part is written once and read by
    /// every client.
    public static let level: Int32 = 9

    public static func compress(_ data: Data) throws -> Data {
        var stream = z_stream()
        guard czlib_deflate_init_gzip(&stream, level) == Z_OK else { throw FormatError.crypto(operation: "deflateInit2 (gzip)") }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(data.count))) + 32
        var out = Data(count: bound)
        let rc: Int32 = data.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = output.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(output.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard rc == Z_STREAM_END else { throw FormatError.crypto(operation: "deflate (gzip): \(rc)") }
        out.count = bound - Int(stream.avail_out)
        return out
    }

    /// Inflates one gzip member, refusing more than `limit` bytes of output, a damaged stream, and
    /// any byte after the member (a part is exactly one member).
    public static func decompress(_ data: Data, limit: Int, what: String) throws -> Data {
        var stream = z_stream()
        guard czlib_inflate_init_gzip(&stream) == Z_OK else { throw FormatError.crypto(operation: "inflateInit2 (gzip)") }
        defer { inflateEnd(&stream) }
        var out = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let status: Int32 = data.withUnsafeBytes { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                let rc: Int32 = chunk.withUnsafeMutableBufferPointer { buf in
                    stream.next_out = buf.baseAddress
                    stream.avail_out = uInt(buf.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let made = chunk.count - Int(stream.avail_out)
                if out.count + made > limit { return Z_MEM_ERROR }
                out.append(contentsOf: chunk[0..<made])
                if rc == Z_STREAM_END { return stream.avail_in == 0 ? Z_STREAM_END : Z_DATA_ERROR }
                if rc != Z_OK { return rc == Z_BUF_ERROR ? Z_DATA_ERROR : rc }
            }
        }
        switch status {
        case Z_STREAM_END: return out
        case Z_MEM_ERROR: throw FormatError.sizeExceeded(member: what, limit: Int64(limit))
        default: throw FormatError.malformed(what: what, reason: "not one whole gzip member (zlib status \(status))")
        }
    }
}
