/// What read tests compare a document's text by: whitespace runs as one space, and the part of a
/// section's text a passage range names (Unicode scalar offsets, as `DocumentText` counts them).
public enum ReadText {
    /// `text` with every run of whitespace one space, and none at the ends.
    public static func normalised(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The part of `text` between Unicode scalar offsets `start` and `end`; a marker when the range is outside it.
    public static func slice(_ text: String, _ start: Int, _ end: Int) -> String {
        let scalars = Array(text.unicodeScalars)
        guard 0 <= start, start <= end, end <= scalars.count else { return "<range \(start)..<\(end) outside \(scalars.count)>" }
        var s = String.UnicodeScalarView()
        s.append(contentsOf: scalars[start..<end])
        return String(s)
    }
}
