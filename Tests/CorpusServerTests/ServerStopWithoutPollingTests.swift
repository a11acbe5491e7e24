import Foundation
import Synchronization
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// Stopping and watching without sleep loops: a stop waits on the downloads it lets finish and
/// wakes when the last one ends, and the request-head watcher sleeps until the next deadline, or
/// for good while no head is pending. What is counted is how often a thread is woken (the
/// kernel's voluntary context switches), not how long anything takes.
@Suite struct ServerStopWithoutPollingTests {
    @Test func stopReturnsPromptlyWhileClientsHoldSlowConnections() throws {
        let f = try ServerFixture()
        // Heads that never finish, and a kept-alive connection idle after its response.
        var held: [RawConnection] = []
        for _ in 0..<3 {
            let c = try RawConnection(port: f.port)
            c.send("GET /catalog.json HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            held.append(c)
        }
        let idle = try RawConnection(port: f.port)
        idle.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try idle.readResponse().status == 200)
        held.append(idle)

        let start = ContinuousClock.now
        let drained = f.server.stop(grace: .seconds(30))
        // A functional bound: none of them has a response in flight, so the grace period is not waited.
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(drained)
        for c in held { #expect(c.waitForClose()) }
    }

    @Test func aStopWaitingForADownloadIsWokenWhenItEndsNotEveryFewMilliseconds() throws {
        let big = 24 << 20
        let f = try ServerFixture(specs: [.init("big", .free, size: big)])
        let c = try RawConnection(port: f.port)
        c.send("GET \(f.bundle("big")) HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try c.readResponse(maxBody: 1)
        #expect(head.status == 200)
        nonisolated(unsafe) let server = f.server
        let result = Mutex<(drained: Bool, wakeups: Int)?>(nil)
        let stopper = Thread {
            let before = ThreadWakeups.ofCurrentThread()
            let drained = server.stop(grace: .seconds(60))
            result.withLock { $0 = (drained, ThreadWakeups.ofCurrentThread() - before) }
        }
        stopper.start()
        // The download stalls for a second while the stop waits for it.
        #expect(f.eventually { (try? RawConnection(port: f.port, timeout: 1)) == nil })
        usleep(1_000_000)
        #expect(result.withLock { $0 } == nil, "stop returned before the download finished")
        let rest = try c.read(big - 1)
        #expect(head.body + rest == f.tree.bundleBytes["big"])
        #expect(f.eventually { result.withLock { $0 } != nil })
        let outcome = try #require(result.withLock { $0 })
        #expect(outcome.drained)
        // A loop looking every 10 ms wakes about a hundred times in that second.
        #expect(outcome.wakeups < 20, "the stopping thread was woken \(outcome.wakeups) times")
    }

    @Test func theHeadWatcherOfAnIdleServerIsNeverWoken() throws {
        let tree = try ServerTestTree()
        let server = try ServerProcess(BuiltProducts.corpusd, ["serve", tree.root, "--listen", "127.0.0.1:{PORT}", "--quiet"])
        defer { server.stop() }
        #expect(try ServerTestClient.request(port: server.port, "GET", "/healthz").status == 200)
        let pid = server.process.processIdentifier
        // The watcher names itself once it runs, which may be after the first request is served.
        var found: String?
        for _ in 0..<200 where found == nil {
            found = ThreadWakeups.thread(named: "corpusd-head-dl", in: pid)
            if found == nil { usleep(50_000) }
        }
        let watcher = try #require(found, "no head-deadline thread in corpusd")
        // The request above closed its connection: no head is pending, so nothing is due.
        usleep(200_000)
        let before = try #require(ThreadWakeups.of(thread: watcher, in: pid))
        usleep(2_000_000)
        let after = try #require(ThreadWakeups.of(thread: watcher, in: pid))
        #expect(after - before == 0, "the watcher was woken \(after - before) times in 2 s with nothing to watch")
    }
}

/// A thread's voluntary context switches (`/proc/…/status`): how often it blocked and was woken.
enum ThreadWakeups {
    static func ofCurrentThread() -> Int { read("/proc/thread-self/status") ?? 0 }

    static func of(thread: String, in pid: Int32) -> Int? { read("/proc/\(pid)/task/\(thread)/status") }

    /// The id of the thread of `pid` whose name is `name`.
    static func thread(named name: String, in pid: Int32) -> String? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.first { tid in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == name
        }
    }

    private static func read(_ path: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
            return Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
