import Foundation

/// A cap on the bytes per second of every transfer that shares it (`corpus --limit-rate`), as
/// curl's `--limit-rate` caps one command: a token bucket on one clock, taken from by each body
/// chunk of every transfer, so parallel downloads together stay under the cap.
///
/// Why our own pacing rather than libcurl's `CURLOPT_MAX_RECV_SPEED_LARGE`: that option caps one
/// transfer, so two parallel downloads would get twice the cap, and URLSession has no such option
/// at all. Pacing happens in `TransferState.body`, which both transports call: the transfer's
/// thread waits before taking the next chunk, the socket's receive window fills, and the sender
/// slows to the cap (TCP flow control), so the cap holds on the wire too.
public final class RateLimit: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: `paidUntil` is only touched while `lock` is held.
    public let bytesPerSecond: Int64
    private let clock: any PacingClock
    private let lock = NSLock()
    /// The moment (on `clock`, ns) the bytes taken so far are paid for at the cap.
    private var paidUntil: UInt64 = 0
    /// At most this much unused time is banked, so an idle moment allows a burst of 0.1 s of bytes, no more.
    private let burstNanoseconds: UInt64 = 100_000_000

    /// The smallest cap accepted: below it one 16 KiB chunk takes longer than a stall timeout allows.
    public static let minimum: Int64 = 1024

    public init(bytesPerSecond: Int64, clock: any PacingClock = MonotonicClock()) {
        precondition(bytesPerSecond > 0)
        self.bytesPerSecond = bytesPerSecond
        self.clock = clock
    }

    /// Parses curl's `--limit-rate` syntax (curl(1): "The suffixes (k, M, G, T, P) are 1024
    /// based"): a number of bytes per second, optionally with a fraction (`1.5M`) and one of those
    /// suffixes in either case, so `2M` is 2 × 1024 × 1024 B/s; nil when it is none or below `minimum`.
    public static func parse(_ text: String) -> RateLimit? {
        var digits = Substring(text)
        var scale: Double = 1
        if let last = digits.last?.lowercased() {
            switch last {
            case "k": scale = 1024
            case "m": scale = 1024 * 1024
            case "g": scale = 1024 * 1024 * 1024
            case "t": scale = 1024 * 1024 * 1024 * 1024
            case "p": scale = 1024 * 1024 * 1024 * 1024 * 1024
            default: break
            }
            if scale != 1 { digits = digits.dropLast() }
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let value = Double(digits), value.isFinite else { return nil }
        let bytes = (value * scale).rounded(.down)
        guard bytes >= Double(minimum), bytes < 1e18 else { return nil }
        return RateLimit(bytesPerSecond: Int64(bytes))
    }

    /// The moment (on `clock`, ns) the caller may use `count` more bytes: the bytes are booked
    /// now, on the shared clock, whoever waits for them.
    func reserve(_ count: Int) -> UInt64 {
        let now = clock.now()
        let cost = UInt64(Double(count) / Double(bytesPerSecond) * 1e9)
        return lock.withLock {
            let floor = now > burstNanoseconds ? now - burstNanoseconds : 0
            paidUntil = max(paidUntil, floor) + cost
            return paidUntil
        }
    }

    /// Waits until `count` bytes fit under the cap; returns false when `cancellation` was set meanwhile.
    func pace(_ count: Int, cancellation: CancellationFlag?) -> Bool {
        // To the deadline on the clock, read after every sleep: a sleep may last longer than asked
        // (a loaded machine wakes the thread late), and counting what was asked for would add
        // every late wake-up to the wait.
        let deadline = reserve(count)
        while true {
            let now = clock.now()
            guard now < deadline else { return true }
            if cancellation?.isCancelled == true { return false }
            // In slices, so a cancelled command does not wait out a long booking.
            clock.sleep(nanoseconds: min(deadline - now, 50_000_000))
        }
    }

    /// `2.0 MiB/s`, as progress shows the cap.
    public var description: String {
        let units: [(String, Double)] = [("GiB", 1_073_741_824), ("MiB", 1_048_576), ("KiB", 1024)]
        for (unit, size) in units where Double(bytesPerSecond) >= size {
            return String(format: "%.1f", Double(bytesPerSecond) / size) + " \(unit)/s"
        }
        return "\(bytesPerSecond) B/s"
    }
}
