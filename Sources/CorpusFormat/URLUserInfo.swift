/// The user and password a URL may carry (`scheme://user:password@host/…`, RFC 3986 §3.2.1),
/// found and hidden by one reading of the authority, so that no message, listing or log line shows
/// a credential that was typed into a URL.
public enum URLUserInfo {
    /// True when `url`'s authority holds a userinfo part (anything before an `@`).
    public static func isPresent(in url: String) -> Bool { userInfoRange(url) != nil }

    /// `url` with its userinfo replaced by `…` (`http://…@host/x`); `url` itself when it has none.
    public static func redacted(_ url: String) -> String {
        guard let range = userInfoRange(url) else { return url }
        return String(url[..<range.lowerBound]) + "…" + String(url[range.upperBound...])
    }

    /// The userinfo's characters, without the `@` that ends them. RFC 3986 §3.2: the authority
    /// follows `scheme://` (or is the whole text when a value was typed without a scheme, as
    /// `AK:SECRET@bucket`) and ends at the first `/`, `?` or `#`; userinfo precedes its last `@`.
    private static func userInfoRange(_ url: String) -> Range<String.Index>? {
        let start = url.range(of: "://")?.upperBound ?? url.startIndex
        let rest = url[start...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return nil }
        return start..<at
    }
}
