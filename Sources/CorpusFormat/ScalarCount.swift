extension String {
    /// The number of Unicode scalars, counted as the UTF-8 bytes that start one (every byte but a
    /// continuation byte): the same number as `unicodeScalars.count` without decoding, which on a
    /// page of text is most of the time spent joining it. Passage lengths (`PassageSplitter`) and
    /// read offsets (`DocumentText`) are counted in these.
    public var scalarCount: Int {
        var s = self
        return s.withUTF8 { bytes in
            var n = 0
            for b in bytes where b & 0xC0 != 0x80 { n += 1 }
            return n
        }
    }
}
