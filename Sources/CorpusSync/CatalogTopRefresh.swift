import CorpusFormat
import Foundation

/// The refresh of a tree whose timestamp names a top document (docs/format.md "Catalog parts",
/// docs/client.md "Catalog parts"): the small signed top document, then only the parts on the
/// paths to the entries this client has installed or asks for, each checked against the hash its
/// parent names; parts held from an earlier refresh are not asked for again.
extension CatalogFetcher {
    /// Largest top document a client accepts: it holds the catalog's fields and one part reference.
    public static let maxTopBytes: Int64 = 64 * 1024

    func refreshByTop(_ top: TimestampDocument.TopRef, remote: Remote, source: Source, root: TrustedRoot, expectedID: String,
                      accepted: AcceptedCatalog?, floor: AcceptedCatalog?, walk: RootChainWalk.Walk, fetch: FetchState?,
                      stamp: AcceptedTimestamp?) async throws -> Pending {
        var verdict: CatalogVerifier.Verdict
        let bytes: Data
        let signature: Data
        if let held = floor, held.catalog.parts != nil, SHA256.digest(held.bytes) == top.digest {
            // Vouched for again: the top document is the accepted one; its own expiry still holds.
            if let expiry = held.catalog.expiryDate, expiry <= now() { throw SyncError.expired(at: held.catalog.expires) }
            (bytes, signature, verdict) = (held.bytes, held.signature, .unchanged(held.catalog))
        } else {
            do {
                bytes = try await client.get(HTTPRequest(url: source.url(for: top.path), maxBodyBytes: min(top.size, Self.maxTopBytes))).body
            } catch TransportError.tooLarge {
                throw SyncError.sizeExceeded(file: top.path, limit: min(top.size, Self.maxTopBytes))
            }
            guard Int64(bytes.count) == top.size else { throw SyncError.sizeMismatch(file: top.path, expected: top.size, actual: Int64(bytes.count)) }
            let digest = SHA256.digest(bytes)
            guard digest == top.digest else { throw SyncError.hashMismatch(file: top.path, expected: top.digest.hex, actual: digest.hex) }
            signature = try await self.signature(of: top.path, on: source)
            // The first top document after flat catalogs may carry the same version as the flat
            // catalog accepted last: other bytes of one version, but not a conflict.
            let sameVersionFlat = floor.map { $0.catalog.parts == nil } ?? false
            verdict = try CatalogVerifier(now: now()).verify(bytes: bytes, signature: signature, file: top.path, root: root,
                                                             expectedID: expectedID, accepted: sameVersionFlat ? nil : floor)
            if let floor, verdict.catalog.version < floor.catalog.version { throw SyncError.rollback(from: floor.catalog.version, to: verdict.catalog.version) }
            guard verdict.catalog.parts != nil else {
                throw SyncError.malformed(what: top.path, reason: "a top document without parts")
            }
        }
        var catalog = verdict.catalog
        guard let parts = catalog.parts else { throw SyncError.malformed(what: top.path, reason: "a top document without parts") }

        // The parts on the paths to the wanted entries, from the cache or the source. A listing
        // makes browsing one more reader of those paths; without one, browsing reads every entry.
        let ids = browsing && catalog.listing == nil ? nil : wantedIDs(remote)
        let cache = CatalogState(home: home)
        var partWalk = CatalogPartWalk(parts: parts, ids: ids)
        var fetched: [PartRef: Data] = [:]
        while let ref = partWalk.next {
            var stored = cache.cachedPart(ref, remote: remote.name)
            if stored == nil {
                do {
                    stored = try await client.get(HTTPRequest(url: source.url(for: ref.path), maxBodyBytes: min(ref.size, CatalogPart.maxStoredBytes))).body
                } catch TransportError.tooLarge {
                    throw SyncError.sizeExceeded(file: ref.path, limit: min(ref.size, CatalogPart.maxStoredBytes))
                }
                fetched[ref] = stored
            }
            do {
                try partWalk.provide(stored)
            } catch let e as FormatError {
                throw SyncError.from(e)
            }
        }
        // TAP 16: each entry's version must not go below the one accepted before, whatever the
        // top document's version says (a stolen catalog key could otherwise roll one entry back).
        // The floor is per channel, and a version still rolling out sets none: halting a rollout
        // is a republish without it (the publisher's own rule, `ChannelRules`).
        // Only a catalog signed by a catalog key of the newest root sets floors (`floor`): after
        // stolen online keys are rotated out, what they signed holds nobody back (TUF fast-forward
        // recovery), as for the catalog's own version.
        let floors = (floor?.catalog.corpora ?? []).filter { $0.rollout == nil }
        for entry in partWalk.entries {
            for earlier in floors where earlier.id == entry.id && earlier.channelName == entry.channelName && entry.version < earlier.version {
                throw SyncError.entryRollback(corpus: entry.id, from: earlier.version.description, to: entry.version.description)
            }
        }
        catalog.corpora = partWalk.entries
        // Parts read for an id asked for the first time are kept (`Pending.parts`) even when the
        // top document is the accepted one.
        switch verdict {
        case .unchanged: verdict = .unchanged(catalog)
        case .accept: verdict = .accept(catalog)
        }
        var p = pending(remote, verdict, bytes: bytes, signature: signature, previous: accepted, root: root, walk: walk, fetch: fetch)
        p.timestamp = stamp
        p.parts = fetched
        if browsing, let listing = catalog.listing { p.listing = try await fetchListing(listing, remote: remote, source: source) }
        return p
    }

    /// The listing index and the listing parts this home does not hold, each checked against its
    /// reference (the index's: the signed top document's) before it is staged; nil when the home
    /// holds them all. One part in memory at a time.
    /// Listing parts fetched at once by a first `corpus catalog`.
    static let listingFetchesInFlight = 8

    private func fetchListing(_ listing: CatalogListing, remote: Remote, source: Source) async throws -> StagedListing? {
        let cache = ListingCache(home: home, remote: remote.name)
        var staged: StagedListing?
        @Sendable func fetched(_ ref: PartRef) async throws -> Data {
            do {
                let body = try await client.get(HTTPRequest(url: source.url(for: ref.path), maxBodyBytes: min(ref.size, CatalogPart.maxStoredBytes))).body
                return body
            } catch TransportError.tooLarge {
                throw SyncError.sizeExceeded(file: ref.path, limit: min(ref.size, CatalogPart.maxStoredBytes))
            }
        }
        func stage(_ stored: Data, _ ref: PartRef) throws {
            if staged == nil { staged = try StagedListing(home: home) }
            try staged!.write(stored, for: ref)
        }
        do {
            var indexBytes = cache.stored(listing.index)
            let held = indexBytes.map { SHA256.digest($0) == listing.index.digest } ?? false
            if !held { indexBytes = try await fetched(listing.index) }
            let parts = try ListingDocument.index(stored: indexBytes!, ref: listing.index)
            if !held { try stage(indexBytes!, listing.index) }
            let missing = parts.map(\.part).filter { !cache.holds($0) }
            if !missing.isEmpty, staged == nil { staged = try StagedListing(home: home) }
            // Several requests in flight: one after another, a first listing of 200 parts waited
            // out 200 round trips before its first row (issue 31 item 3). Each part is checked
            // and staged as it arrives; at most `listingFetchesInFlight` parts are in memory.
            try await withThrowingTaskGroup(of: Void.self) { group in
                var next = missing.makeIterator()
                func start() -> Bool {
                    guard let ref = next.next(), let staged else { return false }
                    group.addTask {
                        let stored = try await fetched(ref)
                        // The rows are decoded when they are listed; here the bytes must be the ones the index names.
                        guard Int64(stored.count) == ref.size else {
                            throw SyncError.sizeMismatch(file: ref.path, expected: ref.size, actual: Int64(stored.count))
                        }
                        let digest = SHA256.digest(stored)
                        guard digest == ref.digest else { throw SyncError.hashMismatch(file: ref.path, expected: ref.digest.hex, actual: digest.hex) }
                        try staged.write(stored, for: ref)
                    }
                    return true
                }
                for _ in 0..<Self.listingFetchesInFlight where start() {}
                while try await group.next() != nil { _ = start() }
            }
        } catch let e as FormatError {
            throw SyncError.from(e)
        }
        return staged
    }

    /// True when every id asked for has its entry among the accepted catalog's (read from the
    /// cached parts) or the catalog is flat: a 304 for the timestamp may then end the refresh.
    func holdsWanted(_ accepted: AcceptedCatalog?, remote: Remote) -> Bool {
        guard let accepted, let parts = accepted.catalog.parts else { return true }
        if browsing {
            guard let listing = accepted.catalog.listing else { return accepted.catalog.corpora.count == parts.count }
            return ListingCache(home: home, remote: remote.name).complete(listing) != nil
        }
        guard let wanted else { return accepted.catalog.corpora.count == parts.count }
        let held = Set(accepted.catalog.corpora.map(\.id))
        return wanted.allSatisfy { held.contains($0) }
    }

    /// The corpus ids whose entries this refresh reads: installed from `remote`, and asked for;
    /// nil for every entry.
    private func wantedIDs(_ remote: Remote) -> Set<String>? {
        guard var ids = wanted ?? (browsing ? [] : nil) else { return nil }
        for (name, id) in home.installedCorpora() where name == remote.name { ids.insert(id) }
        return ids
    }
}
