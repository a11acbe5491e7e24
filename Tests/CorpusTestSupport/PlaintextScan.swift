import Foundation

extension PublishedTreeClient {
    /// The regular files of the home (relative paths) holding any of the zip file at `zipPath`'s
    /// own structure: its first local header and its central directory, bytes that extraction
    /// never writes, so a file holding them is a copy of the archive. Files under the staged
    /// install folders of `staging/` whose name ends with `stagedSuffix` are the install itself
    /// and are not looked at.
    public func filesHoldingArchive(_ zipPath: String, stagedSuffix: String) throws -> [String] {
        let archive = try Data(contentsOf: URL(fileURLWithPath: zipPath))
        let marks = [archive.prefix(64), archive.suffix(256)]
        let staged = entries("staging").filter { $0.hasSuffix(stagedSuffix) }
        let root = URL(fileURLWithPath: home)
        var holding: [String] = []
        let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = walk?.nextObject() as? URL {
            let relative = String(url.path.dropFirst(root.path.count + 1))
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true,
                  !staged.contains(where: { relative.hasPrefix("staging/\($0)/") }) else { continue }
            let bytes = try Data(contentsOf: url)
            if marks.contains(where: { bytes.range(of: $0) != nil }) { holding.append(relative) }
        }
        return holding
    }
}
