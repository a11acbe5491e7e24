/// The one version of this release of CorpusSync: what `corpus --version` and `corpusd --version`
/// print, what the man pages and the Debian package carry (both take it from the built binaries'
/// `--version`, `scripts/package-deb.sh`), and what every request names in its `User-Agent`.
/// It lives in CorpusHTTP, the module with no dependencies that builds requests, so the client,
/// the object store and both command lines read the same constant.
public enum ProductVersion {
    /// `MAJOR.MINOR.PATCH`; a Debian upstream version as it stands (digits and dots only).
    public static let current = "0.1.0"

    /// The `User-Agent` of a request made by `program` (`corpus/0.1.0`, `corpusd/0.1.0`).
    public static func userAgent(_ program: String) -> String { "\(program)/\(current)" }
}
