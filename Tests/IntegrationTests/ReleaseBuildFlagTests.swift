import Foundation
import Testing

/// Every release build (Makefile, benchmarks, demo, soak) goes through `scripts/release-build.sh`,
/// which links the Swift runtime and Foundation statically (issue 17: a `corpus` process loaded
/// and relocated 14 Swift shared objects at every start). The flag changes how every module
/// compiles, so a script calling `swift build -c release` itself would rebuild `.build/release`
/// without it and benchmark a binary users do not run. The fuzz build has its own build path.
@Suite struct ReleaseBuildFlagTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test func everyReleaseBuildLinksTheSwiftRuntimeStatically() throws {
        let wrapper = try String(contentsOfFile: "\(Self.root)/scripts/release-build.sh", encoding: .utf8)
        #expect(wrapper.contains("swift build -c release --static-swift-stdlib \"$@\""))
        let scripts = try FileManager.default.contentsOfDirectory(atPath: "\(Self.root)/scripts")
            .filter { $0.hasSuffix(".sh") && $0 != "release-build.sh" && $0 != "fuzz-build.sh" }.map { "scripts/\($0)" }
        var callers = 0
        for file in scripts + ["Makefile"] {
            let text = try String(contentsOfFile: "\(Self.root)/\(file)", encoding: .utf8)
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("#") {
                #expect(!line.contains("swift build -c release"), "\(file): \(line)")
                if line.contains("scripts/release-build.sh") { callers += 1 }
            }
        }
        // The Makefile's release and soak, release-products.sh, eval, demo and the benchmarks.
        #expect(callers >= 15)
    }
}
