import Foundation
import CorpusFormat

/// Which corpora a publish may take from the build cache, decided for all of them on every core
/// before anything is built: each corpus's input digest (every file of its source hashed) and,
/// when the cache holds the same digest, whether the bundle it names still hashes right. Both
/// read every corpus's files; one at a time they were a few seconds of a republish of 100,000
/// corpora that changed one.
enum ReuseCheck {
    /// What one corpus's check needs, gathered on the publishing thread.
    struct Job: Sendable {
        var entry: CatalogSource.Entry
        var located: String
        var embedderID: String
        var cached: BuildCache.Entry?
    }

    /// The input digest (or why it could not be made, thrown when the corpus's turn comes), and
    /// whether the cached entry matches it with its bundle intact.
    struct Outcome: Sendable {
        var inputs: Result<String, any Error>
        var reusable: Bool
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
        let inputs = Result<String, any Error> {
            e.source != nil
                ? try BuildCache.inputs(of: e, source: job.located, embedderID: job.embedderID, keyID: keyID)
                : BuildCache.inputs(ofPrebuilt: e, sha256: Hex.encode(try SHA256.hash(fileAt: job.located).digest), keyID: keyID)
        }
        guard case let .success(digest) = inputs, let cached = job.cached, cached.inputs == digest else {
            return Outcome(inputs: inputs, reusable: false)
        }
        return Outcome(inputs: inputs, reusable: TreePublisher.bundleIntact(cached.bundle, tree: tree))
    }
}
