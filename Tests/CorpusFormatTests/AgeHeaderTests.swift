import Foundation
import Testing
@testable import CorpusFormat

/// The age header (C2SP age, "Header" and "X25519 recipient stanza"): what we write parses back
/// to itself, each grammar rule refused on its own, and each unwrap refusal its own error.
@Suite struct AgeHeaderTests {
    let identity = try! AgeX25519Identity.generate()
    let fileKey = try! AgeFileKey.generate()

    func validHeaderText() throws -> String {
        String(decoding: try AgeHeader.make(fileKey: fileKey, recipients: [identity.recipient]).encoded, as: UTF8.self)
    }

    @Test func aHeaderWeWriteParsesAndUnwraps() throws {
        let header = try AgeHeader.make(fileKey: fileKey, recipients: [identity.recipient, try AgeX25519Identity.generate().recipient])
        let parsed = try AgeHeader(parsing: header.encoded)
        #expect(parsed == header)
        #expect(parsed.encoded == header.encoded)
        #expect(try parsed.unwrap(with: [identity]) == fileKey)
        let lines = String(decoding: header.encoded, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "age-encryption.org/v1")
        #expect(lines[1].hasPrefix("-> X25519 ") && lines[1].count == 10 + 43)
        #expect(lines[2].count == 43)
        #expect(lines[5].hasPrefix("--- ") && lines[5].count == 4 + 43)
    }

    /// Each mutation of a valid header breaks one rule of the ABNF.
    static func mutate(_ h: String, breaking rule: String) -> String {
        switch rule {
        case "CRLF line ends": return h.replacingOccurrences(of: "\n", with: "\r\n")
        case "a stanza without arguments": return h.replacingOccurrences(of: "-> X25519 ", with: "->X25519 ")
        case "an empty argument": return h.replacingOccurrences(of: "-> X25519 ", with: "-> X25519  ")
        case "a body line of 65 columns": return insertBodyLine(h, String(repeating: "A", count: 65))
        case "a full body line without a final short line": return replaceBody(h, String(repeating: "A", count: 64))
        case "two short body lines": return insertBodyLine(h, "AAAA")
        case "a missing body": return removeBody(h)
        case "padding in the body": return replaceBody(h, "AA==")
        case "a non-canonical body": return replaceBody(h, "AB")
        case "a character outside base64": return replaceBody(h, "AA-A")
        case "no space after ---": return h.replacingOccurrences(of: "--- ", with: "---")
        case "a space after the MAC": return h.dropLast() + " \n"
        case "a short MAC": return h.dropLast(2) + "\n"
        case "no recipient stanza": return "age-encryption.org/v1\n" + h.split(separator: "\n").last! + "\n"
        default: fatalError(rule)
        }
    }

    @Test(arguments: ["CRLF line ends", "a stanza without arguments", "an empty argument", "a body line of 65 columns",
                      "a full body line without a final short line", "two short body lines", "a missing body",
                      "padding in the body", "a non-canonical body", "a character outside base64", "no space after ---",
                      "a space after the MAC", "a short MAC", "no recipient stanza"])
    func grammarViolationsAreMalformed(rule: String) throws {
        let text = Self.mutate(try validHeaderText(), breaking: rule)
        do {
            _ = try AgeHeader(parsing: Array(text.utf8))
            Issue.record("\(rule): parsed")
        } catch {
            guard case .malformedHeader = error else { Issue.record("\(rule): \(error)"); return }
        }
    }

    @Test func anotherVersionIsUnsupported() throws {
        let text = try validHeaderText().replacingOccurrences(of: "age-encryption.org/v1", with: "age-encryption.org/v2")
        #expect(throws: AgeError.unsupportedVersion("v2")) { try AgeHeader(parsing: Array(text.utf8)) }
    }

    @Test func aHeaderForAnotherIdentityIsNoMatch() throws {
        let header = try AgeHeader(parsing: Array(try validHeaderText().utf8))
        #expect(throws: AgeError.noMatchingIdentity) { try header.unwrap(with: [try AgeX25519Identity.generate()]) }
        #expect(throws: AgeError.noMatchingIdentity) { try header.unwrap(with: []) }
    }

    @Test func aLowercaseStanzaTypeIsIgnored() throws {
        let text = try validHeaderText().replacingOccurrences(of: "-> X25519 ", with: "-> x25519 ")
        let header = try AgeHeader(parsing: Array(text.utf8))
        #expect(throws: AgeError.noMatchingIdentity) { try header.unwrap(with: [identity]) }
    }

    @Test func aChangedHeaderFailsItsMAC() throws {
        // A stanza of another type added: the X25519 stanza still unwraps, the MAC does not match.
        let text = try validHeaderText().replacingOccurrences(of: "\n---", with: "\n-> grease x\n\n---")
        let header = try AgeHeader(parsing: Array(text.utf8))
        #expect(throws: AgeError.headerMACMismatch) { try header.unwrap(with: [identity]) }
    }

    @Test func aLowOrderShareIsRefused() throws {
        // The all-zero share is a low-order point: its shared secret is all zeros.
        let text = try validHeaderText().replacingOccurrences(
            of: #"-> X25519 \S+"#, with: "-> X25519 " + AgeBase64.encode([UInt8](repeating: 0, count: 32)), options: .regularExpression)
        let header = try AgeHeader(parsing: Array(text.utf8))
        #expect(throws: AgeError.lowOrderShare) { try header.unwrap(with: [identity]) }
    }

    @Test(arguments: [
        ("-> X25519 AAAA extra", "expected 2 arguments"),
        ("-> X25519 AAAA", "the share is not canonical base64 of 32 bytes"),
    ])
    func malformedX25519StanzasAreRefused(line: String, reason: String) throws {
        let text = try validHeaderText().replacingOccurrences(of: #"-> X25519 \S+"#, with: line, options: .regularExpression)
        let header = try AgeHeader(parsing: Array(text.utf8))
        #expect(throws: AgeError.malformedStanza(reason: reason)) { try header.unwrap(with: [identity]) }
    }

    @Test func aStanzaBodyOfAnotherLengthIsRefusedBeforeDecrypting() throws {
        let text = try replaceBody(validHeaderText(), AgeBase64.encode([UInt8](repeating: 1, count: 33)))
        let header = try AgeHeader(parsing: Array(text.utf8))
        #expect(throws: AgeError.malformedStanza(reason: "the body is not 32 bytes")) { try header.unwrap(with: [identity]) }
    }
}

// The body of the single stanza of a valid header is line 3 (index 2).
private func lines(_ h: String) -> [String] { h.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
private func replaceBody(_ h: String, _ body: String) -> String {
    var l = lines(h); l[2] = body; return l.joined(separator: "\n")
}
private func insertBodyLine(_ h: String, _ line: String) -> String {
    var l = lines(h); l.insert(line, at: 2); return l.joined(separator: "\n")
}
private func removeBody(_ h: String) -> String {
    var l = lines(h); l.remove(at: 2); return l.joined(separator: "\n")
}
