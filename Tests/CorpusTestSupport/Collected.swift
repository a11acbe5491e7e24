import Synchronization

/// Values appended from any thread (a server's access log, progress events), read back by a test.
public final class Collected<Element: Sendable>: Sendable {
    private let elements = Mutex([Element]())

    public init() {}

    public func append(_ element: Element) { elements.withLock { $0.append(element) } }

    public var all: [Element] { elements.withLock { $0 } }
}
