import Testing
import Foundation
import CorpusTestSupport

/// The package as an operator gets it: `scripts/install-tree.sh` (what `make install` runs) lays
/// out the GNU tree and systemd accepts its units; `scripts/package-deb.sh` (what `make deb` runs)
/// builds a .deb that dpkg installs into a scratch root, where `corpus --version` and `corpusd
/// --help` run, the corpusd user exists, the settings are conffiles and no unit is enabled.
/// Built from the debug binaries: a release build inside `make test` would take minutes; `make
/// deb` packages the release build (static Swift runtime), and these binaries load the runtime
/// from /opt/swift, which every machine that runs the tests has.
@Suite(.serialized) struct DebianPackageTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static func files(under root: String) -> [String] {
        let e = FileManager.default.enumerator(atPath: root)
        var out: [String] = []
        while let p = e?.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(root)/\(p)", isDirectory: &isDir), !isDir.boolValue { out.append(p) }
        }
        return out.sorted()
    }

    @Test func makeInstallLaysOutTheTreeAndSystemdAcceptsTheUnitsAndUninstallRemovesIt() throws {
        let dir = TempDirectory("install-tree")
        let prefix = dir.url("prefix")
        // No DESTDIR: the units name binaries that exist, so `systemd-analyze verify` can check them.
        let r = try ProcessRunner.run("\(Self.packageRoot)/scripts/install-tree.sh", [BuiltProducts.directory],
                                      environment: ["PREFIX": prefix, "PATH": "/usr/bin:/bin:/usr/sbin:/sbin"])
        try #require(r.status == 0, "\(r.stderr)")
        let installed = Self.files(under: prefix)
        for expected in ["bin/corpus", "bin/corpusd", "share/man/man1/corpus.1.gz", "share/man/man8/corpusd.8.gz",
                         "share/bash-completion/completions/corpus", "share/zsh/site-functions/_corpusd",
                         "share/fish/vendor_completions.d/corpus.fish", "lib/systemd/system/corpusd-serve.service",
                         "lib/systemd/system/corpusd-mirror.service", "lib/systemd/system/corpusd-mirror.timer",
                         "lib/sysusers.d/corpusd.conf", "etc/corpusd/serve.env", "etc/corpusd/mirror.env",
                         "share/doc/corpussync/README.md", "share/doc/corpussync/docs/operations.md",
                         "share/doc/corpussync/deploy/nginx.conf"] {
            #expect(installed.contains(expected), "\(expected) not in \(installed)")
        }
        let serve = try String(contentsOfFile: "\(prefix)/lib/systemd/system/corpusd-serve.service", encoding: .utf8)
        #expect(serve.contains("ExecStart=\(prefix)/bin/corpusd serve") && serve.contains("EnvironmentFile=-\(prefix)/etc/corpusd/serve.env"))
        #expect(!serve.contains("/usr/local"))
        let units = ["corpusd-serve.service", "corpusd-mirror.service", "corpusd-mirror.timer"].map { "\(prefix)/lib/systemd/system/\($0)" }
        let verify = try ProcessRunner.run("/usr/bin/systemd-analyze", ["verify"] + units, environment: ["SYSTEMD_LOG_LEVEL": "warning", "PATH": "/usr/bin:/bin"])
        #expect(verify.status == 0 && verify.stderr.isEmpty, "\(verify.stdout)\(verify.stderr)")

        let u = try ProcessRunner.run("\(Self.packageRoot)/scripts/install-tree.sh", ["--uninstall"],
                                      environment: ["PREFIX": prefix, "PATH": "/usr/bin:/bin"])
        #expect(u.status == 0, "\(u.stderr)")
        #expect(Self.files(under: prefix) == [], "\(Self.files(under: prefix))")
    }

    @Test func theDebInstallsIntoAScratchRootAndRunsThere() throws {
        let dir = TempDirectory("deb")
        // An ldconfig that finishes its listing after a pause, as a loaded machine's may: the
        // script once stopped reading at its first match, ldconfig died of SIGPIPE, and pipefail
        // dropped libopenblas0 from Depends without a word (a CI run saw it).
        let shims = dir.url("shims")
        try FileManager.default.createDirectory(atPath: shims, withIntermediateDirectories: true)
        try "#!/bin/sh\n/sbin/ldconfig \"$@\"\n[ \"$1\" = -p ] || exit 0\nsleep 0.3\necho '\tlibcorpus-late.so.1 (libc6,x86-64) => /nonexistent/libcorpus-late.so.1'\n"
            .write(toFile: "\(shims)/ldconfig", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: "\(shims)/ldconfig")
        let environment = ["PATH": "\(shims):/usr/bin:/bin:/usr/sbin:/sbin", "DEB_COMPRESSION": "gzip", "DEB_COMPRESSION_LEVEL": "1"]
        let build = try ProcessRunner.run("\(Self.packageRoot)/scripts/package-deb.sh", [BuiltProducts.directory, dir.url("out"), "--swift-runtime-from-toolchain"],
                                          environment: environment, timeout: 300)
        try #require(build.status == 0, "\(build.stderr)")
        let deb = build.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let version = try ProcessRunner.run(BuiltProducts.corpus, ["--version"]).stdout.split(separator: " ")[1].trimmingCharacters(in: .newlines)
        #expect((deb as NSString).lastPathComponent == "corpussync_\(version)_amd64.deb")

        let fields = try ProcessRunner.run("/usr/bin/dpkg-deb", ["--field", deb, "Version", "Depends"]).stdout
        #expect(fields.contains("Version: \(version)"))
        for dependency in ["libc6", "libsqlite3-0", "libcurl4", "libzip4", "libisal2", "libmicrohttpd12", "libxml2", "libssl3", "libopenblas0"] {
            #expect(fields.contains(dependency), "\(fields)")
        }
        #expect(!fields.contains("swift"), "\(fields)")

        // A scratch root with an empty dpkg database; the maintainer script runs outside a chroot
        // with DPKG_ROOT set (the root is no system to chroot into), which postinst honours.
        let root = dir.url("root")
        for folder in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers", "etc"] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true)
        }
        FileManager.default.createFile(atPath: "\(root)/var/lib/dpkg/status", contents: Data())
        let hostPasswd = try String(contentsOfFile: "/etc/passwd", encoding: .utf8)
        let install = try ProcessRunner.run("/usr/bin/dpkg", ["--root=\(root)", "--force-depends", "--force-script-chrootless", "--log=/dev/null", "-i", deb],
                                            environment: environment, timeout: 120)
        try #require(install.status == 0, "dpkg: \(install.stdout)\(install.stderr)")
        #expect(try String(contentsOfFile: "/etc/passwd", encoding: .utf8) == hostPasswd, "the host's users changed")
        #expect(try String(contentsOfFile: "\(root)/etc/passwd", encoding: .utf8).contains("corpusd:"))

        let corpus = try ProcessRunner.run("\(root)/usr/bin/corpus", ["--version"])
        #expect(corpus.status == 0 && corpus.stdout == "corpus \(version)\n", "\(corpus.stderr)")
        let corpusd = try ProcessRunner.run("\(root)/usr/bin/corpusd", ["--help"])
        #expect(corpusd.status == 0 && corpusd.stdout.contains("usage: corpusd COMMAND"), "\(corpusd.stderr)")

        let status = try ProcessRunner.run("/usr/bin/dpkg", ["--root=\(root)", "--status", "corpussync"]).stdout
        #expect(status.contains("Status: install ok installed"))
        #expect(status.contains("/etc/corpusd/serve.env") && status.contains("/etc/corpusd/mirror.env"), "\(status)")
        // Installed, not enabled: no unit is linked into a target's wants.
        #expect(FileManager.default.fileExists(atPath: "\(root)/usr/lib/systemd/system/corpusd-serve.service"))
        #expect(!FileManager.default.fileExists(atPath: "\(root)/etc/systemd/system"))
        let manpage = try ProcessRunner.run("/bin/sh", ["-c", "zcat '\(root)/usr/share/man/man8/corpusd.8.gz' | head -3"]).stdout
        #expect(manpage.contains("CorpusSync \(version)"))

        // lintian: no error. The one tag suppressed is the debug build's own: its binaries find the
        // Swift runtime through a RUNPATH into /opt/swift (the release build `make deb` packages
        // links it statically and has none).
        let lintian = try ProcessRunner.run("/usr/bin/lintian", ["--fail-on", "error", "--suppress-tags", "custom-library-search-path", deb],
                                            environment: environment, timeout: 300)
        #expect(lintian.status == 0, "lintian: \(lintian.stdout)\(lintian.stderr)")
        #expect(!lintian.stdout.contains("E: "), "\(lintian.stdout)")
    }
}
