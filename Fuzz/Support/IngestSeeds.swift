/// Seed documents for the ingest targets: the shapes each ingester handles, and a few it refuses.
enum IngestSeeds {
    static let html = [
        "<!DOCTYPE html><html><head><title>Tides</title><style>p{}</style></head><body><h1>The tide</h1><p>It comes in.</p><h2>Ebb</h2><ul><li>one</li><li>two</li></ul><script>x()</script></body></html>",
        "<!DOCTYPE html [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;\">]><p>&b;&b; &amp; &#x1F600; &nbsp;</p>",
        "<table><tr><td>cell<td>cell</table><pre>  code\n  block</pre><blockquote><p>quoted</blockquote><br><hr>",
        "<div><div><div><section><article><main><p>deep</p></main></article></section></div></div></div>",
        "<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"><body><p>xhtml</p></body></html>",
    ]
    static let markdown = [
        "# Tides\n\nThe tide comes in.\n\n## Ebb\n\n- one\n- two\n\n```swift\nlet x = 1\n```\n\n> quoted *emphasis* and [a link](http://x) ![img](y.png)\n",
        "Title\n=====\n\nSub\n---\n\n***\n\n[ref]: http://example.com\n\n1. first\n2. second\n\n    indented code\n",
        "~~~\nunclosed fence\n# not a heading\n",
        "####### seven\n#no space\n# trailing #####\n`code` **bold** __under__ <b>html</b>\n",
    ]
}
