import Foundation
internal import CZlib
#if canImport(CISAL)
internal import CISAL
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A file compressed by `ParallelDeflate`: where the raw deflate stream is, and what a zip
/// entry and a manifest need to know about the original bytes.
struct DeflatedFile {
    /// The raw deflate stream (RFC 1951), ready to be a zip member's data as is.
    let path: String
    let size: Int64
    let compressedSize: Int64
    let crc32: UInt32
    let sha256: [UInt8]
}

/// Compresses a file into one raw deflate stream on every core, the way pigz does.
///
/// The input is cut into fixed 1 MiB chunks. Each chunk is compressed by its own zlib stream,
/// primed with the 32 KiB before it as a preset dictionary (so matches reach back across the
/// cut as they would in one long stream), and ends with a sync flush: an empty stored block
/// that leaves the output on a byte boundary with no final-block bit. The last chunk finishes
/// the stream instead. Laid end to end, the pieces are one valid deflate stream; a sync flush
/// costs 5 bytes a chunk and the fresh Huffman tables about 0.5 % of the size.
///
/// The cuts depend only on the input, never on how many cores ran, so the same file and level
/// give the same bytes on any machine with the same zlib. The zip's CRC-32 is computed per chunk
/// and joined with `crc32_combine`; the manifest's SHA-256 is computed as the chunks are read,
/// so the input is read once.
enum ParallelDeflate {
    static let chunkSize = 1 << 20
    static let window = 32 << 10

    /// Which deflate compresses the chunks. Both write plain RFC 1951 blocks that any inflater
    /// (zlib, `unzip`, Python's zipfile) reads; only the bytes and the time differ.
    enum Engine: Sendable, Equatable {
        /// zlib at a level 1...9.
        case zlib(level: Int32)
        /// ISA-L's igzip at its level 3 (Linux): on a 107 MB FTS5 database of 100,000 passages
        /// (one core, Debian 12's zlib 1.2.13 and ISA-L 2.30) it gave 40.2 MB in 0.40 s of CPU,
        /// where zlib's level 2 gave 40.9 MB in 2.8 s and libdeflate's level 1 39.3 MB in 0.78 s
        /// (libdeflate has no preset dictionary and always ends its output with a final block, so
        /// its pieces cannot be laid end to end).
        case isal

        /// Named in an error.
        var name: String {
            switch self {
            case .zlib: "zlib"
            case .isal: "ISA-L"
            }
        }

        /// The level recorded in a zip member's flags (`ZipDeflatedSource`): ISA-L's is a fast one.
        var zipLevel: Int32 {
            switch self {
            case let .zlib(level): level
            case .isal: 1
            }
        }

        /// ISA-L where this build links it (Linux), zlib at `fallback` elsewhere.
        static func fast(orZlib fallback: Int32) -> Engine {
            #if canImport(CISAL)
            .isal
            #else
            .zlib(level: fallback)
            #endif
        }
    }

    /// Compresses with zlib at `level`.
    static func compress(fileAt input: String, level: Int32, to output: String) throws -> DeflatedFile {
        try compress(fileAt: input, engine: .zlib(level: level), to: output)
    }

    /// Compresses `input` with `engine` into `output`, which must not exist; a partial
    /// output is removed when this throws.
    ///
    /// The input is memory-mapped, so workers read their chunks (and the window before them)
    /// straight from the page cache, and the SHA-256 of each group runs beside its compression.
    /// It must not change while this runs: the builder hands over a file of its own work folder.
    static func compress(fileAt input: String, engine: Engine, to output: String) throws -> DeflatedFile {
        let mapped: MappedFile
        do { mapped = try MappedFile(path: input) } catch { throw FormatError(error) }
        // Workers read through the mapping's address: keep it mapped until they are all done.
        defer { withExtendedLifetime(mapped) {} }
        let size = mapped.size

        let outFD = SystemCall.retrying { open(output, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard outFD >= 0 else { throw FormatError.io(operation: "create", path: output, errno: errno) }
        var finished = false
        defer {
            close(outFD)
            if !finished { unlink(output) }
        }

        let chunks = max(1, (size + chunkSize - 1) / chunkSize)
        let work = Workspace(input: mapped.bytes.baseAddress, chunksPerGroup: 4 * max(1, ProcessInfo.processInfo.activeProcessorCount),
                             engine: engine)
        var crc = crc32(0, nil, 0)
        var compressed: Int64 = 0
        var first = 0
        while first < chunks {
            let count = min(work.chunksPerGroup, chunks - first)
            let start = first * chunkSize
            let length = min(count * chunkSize, size - start)
            let firstChunk = first
            // One more iteration than chunks: it hashes the group while the others compress it.
            DispatchQueue.concurrentPerform(iterations: count + 1) { c in
                guard c < count else {
                    work.hash(from: start, count: length)
                    return
                }
                let offset = start + c * chunkSize
                work.compress(slot: c, from: offset, count: min(chunkSize, size - offset),
                              primed: firstChunk + c > 0, last: firstChunk + c == chunks - 1)
            }
            for c in 0..<count {
                let piece = work.results[c]
                guard piece.status == Z_OK else {
                    throw FormatError.io(operation: "deflate (\(engine.name) error \(piece.status))", path: input,
                                         errno: piece.status == Z_MEM_ERROR ? ENOMEM : EIO)
                }
                try FileIO.writeAll(outFD, UnsafeRawBufferPointer(start: work.output(slot: c), count: piece.compressed), path: output)
                crc = crc32_combine(crc, piece.crc, off_t(piece.uncompressed))
                compressed += Int64(piece.compressed)
            }
            first += count
        }
        finished = true
        return DeflatedFile(path: output, size: Int64(size), compressedSize: compressed, crc32: UInt32(crc),
                            sha256: work.digest.finalize())
    }

    /// One chunk's outcome; each slot is written by one worker and read after the group.
    struct Piece {
        var status: Int32 = Z_OK
        var uncompressed = 0
        var compressed = 0
        var crc: UInt = 0
    }

    /// The output slots of one group of chunks and the running SHA-256. Workers touch disjoint
    /// slots only, and one worker at a time the digest.
    final class Workspace: @unchecked Sendable {
        /// The mapped input; nil when it is empty.
        let input: UnsafeRawPointer?
        let chunksPerGroup: Int
        let engine: Engine
        let digest = Digest(.sha256)
        private let outputs: UnsafeMutableRawPointer
        private let outputCapacity: Int
        let results: UnsafeMutableBufferPointer<Piece>

        /// ISA-L's scratch, one per slot: its level 3 wants about 1.1 MB a stream.
        private let levelBuffers: UnsafeMutableRawPointer?
        private let levelBufferSize: Int

        init(input: UnsafeRawPointer?, chunksPerGroup: Int, engine: Engine) {
            self.input = input
            self.chunksPerGroup = chunksPerGroup
            self.engine = engine
            #if canImport(CISAL)
            levelBufferSize = engine == .isal ? cisal_level3_buffer_size() : 0
            #else
            levelBufferSize = 0
            #endif
            levelBuffers = levelBufferSize > 0 ? .allocate(byteCount: chunksPerGroup * levelBufferSize, alignment: 64) : nil
            // deflate's worst case is 5 bytes per 16 KiB stored block plus a few bytes; the flush adds 5.
            outputCapacity = chunkSize + chunkSize / 8 + 4096
            outputs = .allocate(byteCount: chunksPerGroup * outputCapacity, alignment: 64)
            results = .allocate(capacity: chunksPerGroup)
            results.initialize(repeating: Piece())
        }

        deinit {
            levelBuffers?.deallocate()
            outputs.deallocate()
            results.deallocate()
        }

        func output(slot: Int) -> UnsafeMutableRawPointer { outputs + slot * outputCapacity }

        func hash(from offset: Int, count: Int) {
            digest.update(UnsafeRawBufferPointer(start: input.map { $0 + offset }, count: count))
        }

        /// Compresses `count` bytes of the input at `offset` into output slot `slot`; when
        /// `primed`, the 32 KiB before them are the dictionary.
        func compress(slot: Int, from offset: Int, count: Int, primed: Bool, last: Bool) {
            let data = input.map { UnsafeMutablePointer(mutating: ($0 + offset).assumingMemoryBound(to: Bytef.self)) }
            var piece = Piece(uncompressed: count)
            defer { results[slot] = piece }
            guard case let .zlib(level) = engine else {
                #if canImport(CISAL)
                // ISA-L's CRC-32 (zip's and gzip's) folds with PCLMULQDQ, several times zlib's 1.2.13 speed.
                piece.crc = UInt(crc32_gzip_refl(0, data, UInt64(count)))
                let written = cisal_deflate_piece(data, UInt32(count), primed ? data! - window : nil, primed ? UInt32(window) : 0,
                                                  last ? 1 : 0, levelBuffers!.advanced(by: slot * levelBufferSize).assumingMemoryBound(to: UInt8.self),
                                                  output(slot: slot).assumingMemoryBound(to: UInt8.self), UInt32(outputCapacity))
                if written < 0 { piece.status = Z_STREAM_ERROR } else { piece.compressed = written }
                #else
                preconditionFailure("ISA-L is not linked on this platform")
                #endif
                return
            }
            piece.crc = crc32(0, data, uInt(count))
            var stream = z_stream()
            piece.status = czlib_deflate_init_raw(&stream, level)
            guard piece.status == Z_OK else { return }
            defer { deflateEnd(&stream) }
            if primed {
                piece.status = deflateSetDictionary(&stream, data! - window, uInt(window))
                guard piece.status == Z_OK else { return }
            }
            stream.next_in = data
            stream.avail_in = uInt(count)
            stream.next_out = output(slot: slot).assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(outputCapacity)
            let rc = deflate(&stream, last ? Z_FINISH : Z_SYNC_FLUSH)
            // All input consumed with room to spare means the flush (or finish) completed.
            guard rc == (last ? Z_STREAM_END : Z_OK), stream.avail_in == 0, stream.avail_out > 0 else {
                piece.status = rc == Z_OK || rc == Z_STREAM_END ? Z_BUF_ERROR : rc
                return
            }
            piece.compressed = outputCapacity - Int(stream.avail_out)
        }
    }
}
