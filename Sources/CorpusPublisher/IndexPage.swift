import Foundation
import CorpusFormat

/// `index.html` of a published tree: a download page for people. Every catalog value is a
/// stranger's text, so each one is HTML-escaped; the page's own Content-Security-Policy also lets
/// only its one inline script run (by hash) and forbids every fetch, so an escaping slip could not
/// run script or call out. The filter box works from a file on disk: no server, no network.
enum IndexPage {
    /// What a reader pins: a single-key tree's `keys/root.pub`, or a root document of a tree with
    /// roles (it lists the catalog keys; such a tree has no `root.pub`).
    enum Trust {
        case singleKey(keyID: String)
        case rootDocument(path: String, version: Int)

        /// The file a reader downloads and the `.pub` its checks below use.
        var file: String {
            switch self {
            case .singleKey: RootKeyChain.publicKeyPath
            case let .rootDocument(path, _): path
            }
        }

        var fileName: String { file.split(separator: "/").last.map(String.init) ?? file }
    }

    /// How many corpora the page lists: a table of 100,000 rows is more than a browser shows
    /// usefully (and rendered whole every publish); past it the page points to the OPDS feeds and
    /// `corpus catalog`, which list everything a page at a time.
    static let defaultMaxRows = 1000

    /// `signer`: the key id that signed the catalog and the bundles' manifests.
    /// `catalogFile`: the signed document a reader verifies, the flat catalog unless the version has none.
    /// `maxRows`: the first corpora, in the catalog's order, that get a row.
    static func render(_ catalog: Catalog, signer: String, trust: Trust, catalogFile: String? = nil, maxRows: Int = defaultMaxRows) -> String {
        let catalogFile = catalogFile ?? TreeLayout.catalogPath(version: catalog.version)
        let listed = catalog.corpora.prefix(max(0, maxRows))
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="\(IndexPageAssets.contentSecurityPolicy)">
        <title>\(escape(catalog.title))</title>
        <style>\(IndexPageAssets.style)</style>
        </head><body>
        <h1>\(escape(catalog.title))</h1>
        <p>Catalog <code>\(escape(catalog.id))</code>, version \(catalog.version), issued \(escape(catalog.issued)), expires \(escape(catalog.expires)).
        \(signedBy(signer, trust))
        Use it with <code>corpus remote add NAME URL --trust \(escape(trust.fileName))</code>. Entitled corpora need a token.</p>
        <p><label for="filter">Filter</label> <input id="filter" type="search" placeholder="title, id, language, license…" autocomplete="off">
        <span id="shown">\(listed.count) of \(listed.count) shown</span></p>
        \(unlisted(catalog.corpora.count - listed.count))<table id="corpora"><thead><tr><th>corpus</th><th>version</th><th>access</th><th>documents</th><th>passages</th><th>size</th>\
        <th>language</th><th>license</th><th>SHA-256</th></tr></thead>
        <tbody>
        \(listed.map(row).joined())</tbody></table>
        \(verifySection(catalogFile: catalogFile, example: catalog.corpora.first, signer: signer, trust: trust))
        <script>\(IndexPageAssets.script)</script>
        </body></html>

        """
    }

    /// The name a browser saves a bundle under (`download` attribute): the content-addressed path
    /// says nothing to a person, `<id>-<version>.corpus.zip` does.
    static func downloadName(_ e: CatalogEntry) -> String { "\(e.id)-\(e.version.description).corpus.zip" }

    private static func row(_ e: CatalogEntry) -> String {
        let access = e.access == .free ? "free" : "entitled" + (e.tier.map { " (\($0))" } ?? "") + ", needs a token"
        // data-label names each cell when the narrow layout stacks a row's cells.
        return """
        <tr class="corpus"><td data-label="corpus"><a href="\(escape(e.bundle.path))" download="\(escape(downloadName(e)))">\(escape(e.title))</a>\
        <br><small>\(escape(e.id)) · \(escape(e.description))</small></td>\
        <td data-label="version">\(escape(e.version.description))</td><td data-label="access">\(escape(access))</td>\
        <td data-label="documents">\(e.documents)</td><td data-label="passages">\(e.passages)</td>\
        <td data-label="size">\(escape(byteCount(e.bundle.size)))</td><td data-label="language">\(escape(e.language))</td>\
        <td data-label="license">\(escape(e.license))</td><td data-label="SHA-256"><code class="sha256">\(escape(e.bundle.digest.hex))</code></td></tr>

        """
    }

    /// What the page says about the corpora it has no row for, and where to find them.
    private static func unlisted(_ count: Int) -> String {
        guard count > 0 else { return "" }
        return """
        <p id="more">\(count) more \(count == 1 ? "corpus is" : "corpora are") not listed here. Browse them all in the \
        <a href="\(OPDSFeeds.folder)/\(OPDSFeeds.rootName).atom">OPDS catalog</a> (any e-book reader or library app), \
        or list them with <code>corpus catalog</code>; the filter above searches the rows shown only.</p>

        """
    }

    private static func signedBy(_ signer: String, _ trust: Trust) -> String {
        switch trust {
        case .singleKey:
            return "Signed by root key <code>\(escape(signer))</code> (<a href=\"\(trust.file)\">root.pub</a>)."
        case let .rootDocument(path, version):
            return "Signed by catalog key <code>\(escape(signer))</code>, which root \(version) "
                + "(<a href=\"\(escape(path))\">\(escape(trust.fileName))</a>) lists for catalogs."
        }
    }

    /// How to check a download by hand: the catalog is signed by the root key (a catalog key of
    /// the root document), the catalog names each bundle's SHA-256, and each bundle carries its
    /// own signed manifest.
    private static func verifySection(catalogFile: String, example: CatalogEntry?, signer: String, trust: Trust) -> String {
        let file = escape(example.map(downloadName) ?? "ID-VERSION.corpus.zip")
        let hash = escape(example?.bundle.digest.hex ?? "SHA256")
        let catalogFile = escape(catalogFile)
        let pub: String, keyStep: String
        switch trust {
        case .singleKey:
            (pub, keyStep) = ("root.pub", "")
        case .rootDocument:
            // minisign reads a .pub file: the root document lists the key's base64 line by id.
            (pub, keyStep) = ("catalog.pub", "<pre>printf 'untrusted comment: catalog key\\n%s\\n' \"$(jq -r '.keys.\"\(escape(signer))\"' \(escape(trust.fileName)))\" &gt; catalog.pub</pre>")
        }
        return """
        <h2 id="verify">Verify a download</h2>
        <ol>
        <li>Check the bundle against the SHA-256 above:
        <pre>echo "\(hash)  \(file)" | sha256sum -c</pre></li>
        <li>Check that the catalog which lists that SHA-256 is signed by the \(pub == "root.pub" ? "root key" : "catalog key")
        (get <a href="\(catalogFile)">\(catalogFile)</a>, <a href="\(catalogFile)\(TreeLayout.signatureSuffix)">its signature</a>
        and <a href="\(escape(trust.file))">\(escape(trust.fileName))</a>):\(keyStep)
        <pre>minisign -Vm \(catalogFile.split(separator: "/").last.map(String.init) ?? catalogFile) -p \(pub)</pre></li>
        <li>Check the manifest inside the bundle:
        <pre>unzip -p \(file) corpus.json &gt; corpus.json
        unzip -p \(file) corpus.json.minisig &gt; corpus.json.minisig
        minisign -Vm corpus.json -p \(pub)</pre></li>
        </ol>
        <p><code>corpus install</code> does all of this itself.</p>
        """
    }

    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    static func byteCount(_ n: Int64) -> String {
        if n < 1024 { return "\(n) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var v = Double(n) / 1024
        var i = 0
        while v >= 1024 && i < units.count - 1 { v /= 1024; i += 1 }
        return v < 10 ? "\((v * 10).rounded() / 10) \(units[i])" : "\(Int(v.rounded())) \(units[i])"
    }
}
