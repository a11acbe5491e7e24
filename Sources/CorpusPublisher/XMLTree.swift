import Foundation
internal import CXML2

/// A parsed libxml2 document (`htmlCtxtReadMemory` or `xmlCtxtReadMemory`), freed with `xmlFreeDoc` in `deinit`.
///
/// Both parsers run with network access off and error printing off; the XML parser does not
/// substitute entities or load DTDs, so a crafted OPF cannot pull in files or expand entities.
/// Each parse has a context of its own, read afterwards for the one error worth telling apart:
/// libxml2 stops at `maxDepth` levels of elements ("Excessive depth in document") and keeps only
/// what it had (the HTML parser recovering) or nothing (the XML parser), which would otherwise
/// look like a document without text, or not XML.
final class XMLTree {
    let doc: xmlDocPtr

    enum Failure: Error {
        /// libxml2 could not make a document out of the bytes at all.
        case unparsable
        /// The parser stopped at its nesting limit; what it kept is dropped too.
        case nestingTooDeep
    }

    /// libxml2's element depth limit without `XML_PARSE_HUGE` (`xmlParserMaxDepth`, 256 since 2.7;
    /// HUGE stays off, the walks over the tree recurse), for messages.
    static let maxDepth = 256

    private static let initialized: Bool = {
        // libxml2 wants its global state set up once before documents are parsed on several threads.
        xmlInitParser()
        return true
    }()

    enum Flavor { case html, xml }

    /// Parses bytes.
    init(_ bytes: [UInt8], flavor: Flavor) throws(Failure) {
        _ = Self.initialized
        cxml2_silence_generic_errors()
        guard bytes.count < Int(Int32.max), let ctxt = flavor == .html ? htmlNewParserCtxt() : xmlNewParserCtxt() else { throw .unparsable }
        defer { flavor == .html ? htmlFreeParserCtxt(ctxt) : xmlFreeParserCtxt(ctxt) }
        let parsed: xmlDocPtr? = bytes.withUnsafeBufferPointer { buf in
            buf.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buf.count) { p in
                switch flavor {
                case .html:
                    let options = Int32(HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                                        | HTML_PARSE_NONET.rawValue | HTML_PARSE_RECOVER.rawValue)
                    // Without a charset hint libxml2's HTML parser assumes Latin-1; text that
                    // is valid UTF-8 is read as UTF-8, anything else is left to <meta charset>.
                    let encoding: String? = Text.decodeUTF8(bytes) != nil ? "UTF-8" : nil
                    return htmlCtxtReadMemory(ctxt, p, Int32(buf.count), "document.html", encoding, options)
                case .xml:
                    let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
                    return xmlCtxtReadMemory(ctxt, p, Int32(buf.count), "document.xml", nil, options)
                }
            }
        }
        // The depth check raises XML_ERR_INTERNAL_ERROR and halts the parser, so it is the last error.
        let last = ctxt.pointee.lastError
        if last.code == Int32(XML_ERR_INTERNAL_ERROR.rawValue), last.message.map({ String(cString: $0).hasPrefix("Excessive depth") }) == true {
            if let parsed { xmlFreeDoc(parsed) }
            throw .nestingTooDeep
        }
        guard let parsed else { throw .unparsable }
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
