import Foundation
import CorpusFormat

/// The download page's fixed style and script, and the policy that lets only that script run.
enum IndexPageAssets {
    /// Readable on a phone: below 40em each row becomes a block of labelled lines and long hashes wrap.
    static let style = """
    body{font-family:sans-serif;max-width:72em;margin:1em auto;padding:0 1em;line-height:1.4}\
    td,th{padding:.3em .6em;text-align:left;vertical-align:top}table{border-collapse:collapse;width:100%}\
    tr.corpus{border-top:1px solid #ccc}code.sha256{font-size:.8em;word-break:break-all}\
    pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f4;padding:.5em}input{font-size:1em;max-width:100%}\
    @media (max-width:40em){thead{display:none}table,tbody,tr,td{display:block;width:auto}\
    td{padding:.15em 0}td::before{content:attr(data-label) ": ";font-weight:bold}tr.corpus{padding:.6em 0}}
    """

    /// Filters rows by the words typed (all must appear in the row's text, case-insensitive). The
    /// initial filter comes from the address, `#q=WORDS` or `?q=WORDS`, so a link can carry one.
    /// It reads text with textContent and writes none into the page as markup.
    static let script = """
    (function(){var box=document.getElementById('filter'),shown=document.getElementById('shown');\
    var rows=Array.prototype.slice.call(document.querySelectorAll('#corpora tr.corpus'));\
    function apply(){var words=box.value.toLowerCase().split(/\\s+/).filter(Boolean),n=0;\
    rows.forEach(function(r){var t=r.textContent.toLowerCase();\
    var hit=words.every(function(w){return t.indexOf(w)>=0});r.hidden=!hit;if(hit)n++});\
    shown.textContent=n+' of '+rows.length+' shown'}\
    function initial(){var h=location.hash.replace(/^#/,''),p=new URLSearchParams(h.indexOf('=')>=0?h:location.search);\
    return p.get('q')||''}\
    box.value=initial();box.addEventListener('input',apply);apply()})();
    """

    /// No fetch, frame, object or image of any origin; the inline style; the one script by its hash.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-\(Data(SHA256.hash(Data(script.utf8))).base64EncodedString())'; base-uri 'none'; form-action 'none'"
}
