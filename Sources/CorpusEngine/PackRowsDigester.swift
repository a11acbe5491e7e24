import CorpusFormat

extension PackDigest {
    /// The rows digest (`PackDigest.Digests.rows`) computed from the rows as a builder inserts
    /// them, so the build need not read its finished pack back (on 100,000 passages that read ran
    /// after the pack was written, on the build's critical path).
    ///
    /// The digest takes every document before every passage, while a builder inserts them in
    /// groups (a group's documents, then its passages): documents go into the hash as they come,
    /// passages are serialized into memory (about the size of their text) and hashed at `finish`.
    /// Documents and passages must each come in ascending id, the order the pack returns them in.
    public final class RowsDigester {
        private let hasher = Hasher()
        private let passages = Hasher(holding: true)

        public init() {
            hasher.bytes(Array("corpus-rows-v1\n".utf8))
        }

        public func document(id: Int64, path: String, title: String) {
            hasher.tag("D")
            hasher.int(id)
            hasher.text(path)
            hasher.text(title)
        }

        public func passage(id: Int64, pid: String, documentID: Int64, ordinal: Int64, title: String, section: String, text: String) {
            passages.tag("P")
            passages.int(id)
            passages.text(pid)
            passages.int(documentID)
            passages.int(ordinal)
            passages.text(title)
            passages.text(section)
            passages.text(text)
        }

        /// The digest over the documents, then the passages, given so far.
        public func finish() -> SHA256Digest {
            hasher.append(passages)
            return hasher.finish()
        }
    }
}

@available(*, unavailable) extension PackDigest.RowsDigester: Sendable {}
