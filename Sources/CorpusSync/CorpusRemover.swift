import CorpusFormat
import Foundation

/// `corpus remove NAME`: resolves an installed corpus by `id` or `remote/id` and removes it
/// (`Installer.remove`: its `current` link first, then its folder, moved aside whole).
struct CorpusRemover: Sendable {
    let home: HomeLayout

    func remove(_ name: String, installed: [InstalledCorpusRecord]) throws -> InstalledCorpusRecord {
        switch SyncPlanner(offered: [], installed: installed, importLimit: nil).resolveInstalled(name) {
        case let .success(r):
            try Installer(home: home).remove(remote: r.remote, id: r.id)
            return r
        case .failure(.ambiguous(let c)):
            throw SyncError.ambiguousName(name: name, candidates: c)
        case .failure:
            throw SyncError.notInstalled(name: name)
        }
    }
}
