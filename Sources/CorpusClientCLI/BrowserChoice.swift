import CorpusEngine
import CorpusSync

extension ClientContext {
    /// What `corpus documents` and `corpus read` browse: the installed corpora, or with `--remote
    /// NAME` that remote's server (`corpusd serve --search`), which answers the same pages.
    func browser(remote name: String?) throws -> any CorpusBrowser {
        guard let name else { return LocalBrowser(library: CorpusLibrary(home: home.root)) }
        if let tokenRefusal { throw tokenRefusal }
        guard let remote = ((try? client.config().remotes) ?? []).first(where: { $0.name == name }) else {
            throw SyncError.notFound(file: "remote \(name) (corpus remote add NAME URL --trust PUB adds one)")
        }
        return RemoteBrowser(remote: remote, token: client.token, configuration: client.httpConfiguration)
    }
}
