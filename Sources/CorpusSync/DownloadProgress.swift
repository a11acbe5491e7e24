/// How far a download is, reported through `Downloader`'s callback (the library prints nothing).
public struct DownloadProgress: Sendable, Equatable {
    /// Bytes of the bundle on disk, including a resumed partial.
    public var bytesDone: Int64
    public var total: Int64
    /// Bytes per second received in this session (a resumed partial does not count).
    public var bytesPerSecond: Double
    /// Seconds left at the current rate; nil until a rate is known.
    public var eta: Double?
    /// The base URL serving the bytes.
    public var source: String
}
