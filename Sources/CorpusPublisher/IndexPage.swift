import CorpusFormat

/// `index.html` of a published tree: a plain download page for people, every value HTML-escaped.
enum IndexPage {
    static func render(_ catalog: Catalog, rootKeyID: String) -> String {
        var rows = ""
        for e in catalog.corpora {
            let access = e.access == .free ? "free" : "entitled" + (e.tier.map { " (\($0))" } ?? "")
            rows += """
            <tr><td><a href="\(escape(e.bundle.path))">\(escape(e.title))</a><br><small>\(escape(e.id)) · \(escape(e.description))</small></td>\
            <td>\(escape(e.version.description))</td><td>\(escape(access))</td><td>\(e.documents)</td><td>\(e.passages)</td>\
            <td>\(escape(byteCount(e.bundle.size)))</td><td>\(escape(e.language))</td><td>\(escape(e.license))</td></tr>

            """
        }
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(catalog.title))</title>
        <style>body{font-family:sans-serif;max-width:60em;margin:2em auto}td,th{padding:.3em .6em;text-align:left;vertical-align:top}</style>
        </head><body>
        <h1>\(escape(catalog.title))</h1>
        <p>Catalog <code>\(escape(catalog.id))</code>, version \(catalog.version), issued \(escape(catalog.issued)), expires \(escape(catalog.expires)).
        Signed by root key <code>\(escape(rootKeyID))</code> (<a href="\(RootKeyChain.publicKeyPath)">root.pub</a>).
        Use it with <code>corpus remote add NAME URL --trust root.pub</code>; verify a download by hand with
        <code>unzip -p FILE.corpus.zip corpus.json &gt; corpus.json; unzip -p FILE.corpus.zip corpus.json.minisig &gt; corpus.json.minisig; minisign -Vm corpus.json -p root.pub</code>.
        Entitled corpora need a token.</p>
        <table><tr><th>corpus</th><th>version</th><th>access</th><th>documents</th><th>passages</th><th>size</th><th>language</th><th>license</th></tr>
        \(rows)</table>
        </body></html>

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
