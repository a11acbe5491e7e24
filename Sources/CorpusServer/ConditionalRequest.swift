/// The preconditions of RFC 9110 §13 for a GET or HEAD of one file, evaluated in the order of
/// §13.2.2: If-Match, else If-Unmodified-Since; then If-None-Match, else If-Modified-Since.
/// (If-Range, the fifth, only decides whether a Range applies; see `RequestHandler.ifRangeHolds`.)
enum ConditionalRequest {
    enum Outcome: Equatable {
        case proceed
        case notModified
        case preconditionFailed(String)
    }

    /// - Parameters:
    ///   - ifMatch, ifNoneMatch: the field values, several field lines joined with commas.
    ///   - lastModified, now: seconds since 1970; `now` is the server's clock, against which a
    ///     date in the future is no date at all (§13.1.3).
    static func evaluate(ifMatch: String?, ifUnmodifiedSince: String?, ifNoneMatch: String?, ifModifiedSince: String?,
                         etag: String, lastModified: Int64, now: Int64) -> Outcome {
        if let ifMatch {
            // §13.1.1: strong comparison; a list that does not parse matches nothing.
            guard EntityTagList(ifMatch)?.matches(etag, weak: false) == true else {
                return .preconditionFailed("If-Match names no current version of this file")
            }
        } else if let text = ifUnmodifiedSince, let date = HTTPDate.parse(text), lastModified > date {
            // §13.1.4: ignored when If-Match is present or the date does not parse.
            return .preconditionFailed("the file was modified after the If-Unmodified-Since date")
        }
        if let ifNoneMatch {
            // §13.1.2: weak comparison; when present, If-Modified-Since is not looked at.
            return EntityTagList(ifNoneMatch)?.matches(etag, weak: true) == true ? .notModified : .proceed
        }
        if let text = ifModifiedSince, let date = HTTPDate.parse(text), date <= now, lastModified <= date {
            return .notModified
        }
        return .proceed
    }
}

/// `"*"` or a comma-separated list of entity-tags (RFC 9110 §8.8.3, §13.1.1): `"xyzzy"`,
/// `W/"xyzzy"`. nil when the text is neither, so that a malformed condition never matches.
struct EntityTagList: Equatable {
    /// nil for `*`.
    let tags: [(weak: Bool, opaque: Substring)]?

    static func == (a: EntityTagList, b: EntityTagList) -> Bool {
        a.tags?.map(\.weak) == b.tags?.map(\.weak) && a.tags?.map(\.opaque) == b.tags?.map(\.opaque)
    }

    init?(_ text: String) {
        let trimmed = RequestHeadRules.trimmed(text)
        if trimmed == "*" {
            tags = nil
            return
        }
        var tags: [(Bool, Substring)] = []
        var rest = Substring(trimmed)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            if rest.isEmpty { break }
            let weak = rest.hasPrefix("W/")
            if weak { rest = rest.dropFirst(2) }
            guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else { return nil }
            let opaque = rest[rest.startIndex...close]
            // etagc: %x21 / %x23-7E / obs-text.
            guard opaque.dropFirst().dropLast().unicodeScalars.allSatisfy({ $0.value == 0x21 || ($0.value >= 0x23 && $0.value != 0x7F) }) else { return nil }
            tags.append((weak, opaque))
            rest = rest[rest.index(after: close)...].drop { $0 == " " || $0 == "\t" }
            guard rest.isEmpty || rest.first == "," else { return nil }
        }
        guard !tags.isEmpty else { return nil }
        self.tags = tags
    }

    /// Whether the list names `etag` (a strong tag in its quotes): any tag for `*`; with `weak`
    /// the W/ prefixes are ignored, without it only a strong tag equal to it matches.
    func matches(_ etag: String, weak: Bool) -> Bool {
        guard let tags else { return true }
        return tags.contains { (weak || !$0.weak) && $0.opaque == Substring(etag) }
    }
}
