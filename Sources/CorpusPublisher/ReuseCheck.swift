import Foundation
import CorpusFormat

/// Which corpora a publish may take from the build cache, decided for all of them on every core
/// before anything is built: each corpus's input digest (every file of its source) and, when the
/// cache holds the same digest, whether the bundle it names is intact. A file whose stamp is the
/// one recorded when it was last hashed is not read again (`FileStamp`); one at a time and
/// reading every byte, these checks were seconds of a republish of 100,000 small corpora, and
/// would read every byte of a catalog of books.
enum ReuseCheck {
    /// What one corpus's check needs, gathered on the publishing thread.
    struct Job: Sendable {
        var entry: CatalogSource.Entry
        var located: String
        var embedderID: String
        var cached: BuildCache.Entry?
    }

    /// The input digest (or why it could not be made, thrown when the corpus's turn comes), the
    /// source files' stamped digests to keep, whether the cached entry matches with its bundle
    /// intact (and the bundle's stamp to keep), and how many files were read to be hashed.
    struct Outcome: Sendable {
        var inputs: Result<String, any Error>
        var sources: [String: StampedDigest] = [:]
        var reusable = false
        var bundleStamp: FileStamp?
        var hashed = 0
    }

    static func run(_ jobs: [Job], keyID: KeyID, tree: String) -> [Outcome] {
        let slots = Workers.Slots<Outcome>(count: jobs.count)
        Workers.forEach(jobs.count, width: Workers.all) { i in
            slots.set(i, check(jobs[i], keyID: keyID, tree: tree))
        }
        return jobs.indices.map { slots.take($0)! }
    }

    static func check(_ job: Job, keyID: KeyID, tree: String) -> Outcome {
        let e = job.entry
        var hasher = StampedHasher(known: job.cached?.sources ?? [:])
        let inputs = Result<String, any Error> {
            e.source != nil
                ? try BuildCache.inputs(of: e, source: job.located, embedderID: job.embedderID, keyID: keyID, hasher: &hasher)
                : BuildCache.inputs(ofPrebuilt: e, sha256: try hasher.digest(of: FileHandleReader(path: job.located), key: "").hex, keyID: keyID)
        }
        var outcome = Outcome(inputs: inputs, sources: hasher.kept, hashed: hasher.hashed)
        guard case let .success(digest) = inputs, let cached = job.cached, cached.inputs == digest else { return outcome }
        let path = "\(tree)/\(cached.bundle.path)"
        let takenAt = FileStamp.now()
        guard let stamp = FileStamp.of(path: path), stamp.size == cached.bundle.size else { return outcome }
        if stamp == cached.bundleStamp {
            outcome.reusable = true
            outcome.bundleStamp = stamp
            return outcome
        }
        outcome.hashed += 1
        outcome.reusable = cached.bundle.matches(fileAt: path)
        outcome.bundleStamp = outcome.reusable && stamp.settled(takenAt: takenAt) ? stamp : nil
        return outcome
    }
}
