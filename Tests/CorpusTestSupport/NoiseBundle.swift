import Foundation
import CorpusFormat
import CorpusEngine

/// An embedder of deterministic pseudo-random unit vectors: float32 rows of it do not compress,
/// so a bundle of a given size is quick to make (a few short passages per MiB, no text to index).
public struct NoiseEmbedder: Embedder {
    public let id = "test-noise-384"
    public let dimension = 384

    public init() {}

    public func embed(_ texts: [String]) throws -> [[Float]] {
        texts.map { text in
            var state = UInt64(truncatingIfNeeded: text.hashValue) | 1
            var v = [Float](repeating: 0, count: dimension)
            var norm: Float = 0
            for i in 0..<dimension {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                v[i] = Float(Int32(truncatingIfNeeded: state >> 32)) / Float(Int32.max)
                norm += v[i] * v[i]
            }
            let scale = 1 / norm.squareRoot()
            return v.map { $0 * scale }
        }
    }
}

/// A real signed bundle of about `mebibytes` MiB (float32 noise vectors, short passages that share
/// `word`), signed by `key`: a large corpus made in seconds for transfer tests.
public func makeNoiseBundle(id: String, version: String = "1", mebibytes: Int, word: String, key: SecretKey,
                            work: TempDirectory) throws -> (path: String, manifest: Manifest) {
    let rows = mebibytes * (1 << 20) / (384 * 4)
    let perDocument = 500
    var documents: [PackFixture.Document] = []
    var row = 0
    while row < rows {
        let n = min(perDocument, rows - row)
        documents.append(PackFixture.Document(path: "part-\(documents.count + 1).md", title: "Part \(documents.count + 1)",
                                              passages: (0..<n).map { PackFixture.Passage("\(word) passage \(row + $0)") }))
        row += n
    }
    let pack = PackFixture(id: id, version: version, documents: documents, embedder: NoiseEmbedder(), encoding: .f32)
    let folder = work.url("\(id)-\(version)-noise")
    try pack.write(to: folder)
    let unsigned = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(BundleLayout.manifest)")))
    let out = "\(folder).corpus.zip"
    let manifest = try BundleWriter.write(manifest: unsigned, packPath: "\(folder)/\(BundleLayout.pack)",
                                          vectorsPath: "\(folder)/\(BundleLayout.vectors)", key: key, to: out)
    try? FileManager.default.removeItem(atPath: folder)
    return (out, manifest)
}
