import Foundation

/// Reads a fuzzer's input front to back: a few bytes choose a mode or a size, the rest is data.
/// Reading past the end yields zeros and empty slices, so every input is a valid program.
struct FuzzInput {
    private let bytes: [UInt8]
    private var at = 0

    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    var isEmpty: Bool { at >= bytes.count }
    var all: [UInt8] { bytes }

    mutating func byte() -> UInt8 {
        guard at < bytes.count else { return 0 }
        defer { at += 1 }
        return bytes[at]
    }

    mutating func u32() -> UInt32 {
        (0..<4).reduce(UInt32(0)) { v, i in v | UInt32(byte()) << (8 * UInt32(i)) }
    }

    mutating func take(_ count: Int) -> [UInt8] {
        let n = max(0, min(count, bytes.count - at))
        defer { at += n }
        return Array(bytes[at..<at + n])
    }

    mutating func rest() -> [UInt8] { take(bytes.count - at) }

    /// The rest as text: invalid UTF-8 becomes U+FFFD, as any reader of untrusted text sees it.
    mutating func restText() -> String { String(decoding: rest(), as: UTF8.self) }
}

/// A named set of files packed into one fuzz input: repeated `name length (1 byte), name,
/// data length (4 bytes LE), data`. Lets a target mutate the members of an archive or a folder
/// instead of the archive's framing, which the zip target fuzzes on its own.
enum FileSet {
    static func decode(_ input: inout FuzzInput, maxFiles: Int = 16) -> [(name: [UInt8], data: [UInt8])] {
        var files: [(name: [UInt8], data: [UInt8])] = []
        while !input.isEmpty, files.count < maxFiles {
            let name = input.take(Int(input.byte()))
            let data = input.take(Int(input.u32() & 0x00FF_FFFF))
            files.append((name, data))
        }
        return files
    }

    static func encode(_ files: [(String, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        for (name, data) in files {
            let n = Array(name.utf8.prefix(255))
            out.append(UInt8(n.count))
            out += n
            let c = UInt32(data.count)
            out += [UInt8(c & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c >> 16 & 0xFF), UInt8(c >> 24)]
            out += data
        }
        return out
    }
}

/// A failed property: print what broke and abort, which libFuzzer reports as a crash and saves
/// the input for.
func fuzzAssert(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        FileHandle.standardError.write(Data("fuzz property failed: \(message())\n".utf8))
        abort()
    }
}
