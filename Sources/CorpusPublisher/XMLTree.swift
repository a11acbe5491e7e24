import Foundation
internal import CXML2

/// A parsed libxml2 document (`htmlReadMemory` or `xmlReadMemory`), freed with `xmlFreeDoc` in `deinit`.
///
/// Both parsers run with network access off and error printing off; the XML parser does not
/// substitute entities or load DTDs, so a crafted OPF cannot pull in files or expand entities.
final class XMLTree {
    let doc: xmlDocPtr

    private static let initialized: Bool = {
        // libxml2 wants its global state set up once before documents are parsed on several threads.
        xmlInitParser()
        return true
    }()

    enum Flavor { case html, xml }

    /// Parses bytes; nil when libxml2 cannot make a document out of them at all.
    init?(_ bytes: [UInt8], flavor: Flavor) {
        _ = Self.initialized
        guard bytes.count < Int(Int32.max) else { return nil }
        let parsed: xmlDocPtr? = bytes.withUnsafeBufferPointer { buf in
            buf.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buf.count) { p in
                switch flavor {
                case .html:
                    let options = Int32(HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                                        | HTML_PARSE_NONET.rawValue | HTML_PARSE_RECOVER.rawValue)
                    // Without a charset hint libxml2's HTML parser assumes Latin-1; text that
                    // is valid UTF-8 is read as UTF-8, anything else is left to <meta charset>.
                    let encoding: String? = Text.decodeUTF8(bytes) != nil ? "UTF-8" : nil
                    return htmlReadMemory(p, Int32(buf.count), "document.html", encoding, options)
                case .xml:
                    let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
                    return xmlReadMemory(p, Int32(buf.count), "document.xml", nil, options)
                }
            }
        }
        guard let parsed else { return nil }
        doc = parsed
    }

    deinit { xmlFreeDoc(doc) }

    var root: XMLNode? { xmlDocGetRootElement(doc).map(XMLNode.init) }
}

@available(*, unavailable) extension XMLTree: Sendable {}

/// A borrowed node of an `XMLTree`; valid only while the tree is alive.
struct XMLNode {
    let ptr: xmlNodePtr

    var isElement: Bool { ptr.pointee.type == XML_ELEMENT_NODE }
    var isText: Bool { ptr.pointee.type == XML_TEXT_NODE || ptr.pointee.type == XML_CDATA_SECTION_NODE }

    /// The local name, lower-cased (HTML element names already are; OPF names are matched case-insensitively).
    var name: String { ptr.pointee.name.map { String(cString: $0).lowercased() } ?? "" }

    /// The text of a text or CDATA node.
    var content: String { ptr.pointee.content.map { String(cString: $0) } ?? "" }

    var children: [XMLNode] {
        var out: [XMLNode] = []
        var c = ptr.pointee.children
        while let node = c {
            out.append(XMLNode(ptr: node))
            c = node.pointee.next
        }
        return out
    }

    /// An attribute's value by local name (case-insensitive), read without allocating through libxml2.
    func attribute(_ name: String) -> String? {
        var a = ptr.pointee.properties
        while let attr = a {
            if let n = attr.pointee.name, String(cString: n).lowercased() == name {
                var value = ""
                var c = attr.pointee.children
                while let node = c {
                    if let t = node.pointee.content { value += String(cString: t) }
                    c = node.pointee.next
                }
                return value
            }
            a = attr.pointee.next
        }
        return nil
    }

    /// All text below this node, in document order.
    var textContent: String {
        if isText { return content }
        return children.map(\.textContent).joined()
    }

    /// Depth-first search for elements with a local name.
    func descendants(named name: String) -> [XMLNode] {
        var out: [XMLNode] = []
        for c in children where c.isElement {
            if c.name == name { out.append(c) }
            out += c.descendants(named: name)
        }
        return out
    }
}
