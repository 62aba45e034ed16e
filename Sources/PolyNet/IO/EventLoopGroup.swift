// Several event loops (one per core) that independent work, such as a bridge's calls, is spread over.
import FoundationEssentials
import Synchronization

/// A fixed set of event loops handed out round-robin: each call lives on one loop (its sockets, timers and
/// frame clock), so calls on different loops run on different cores without sharing state.
public final class EventLoopGroup: Sendable {
    /// The loops, in hand-out order.
    public let loops: [EventLoop]
    private let counter = Atomic<UInt>(0)

    /// Starts `count` loops (at least one) named "`name` 0", "`name` 1", ….
    public init(count: Int, name: String = "PolyVoice I/O") throws(SocketError) {
        var loops: [EventLoop] = []
        for index in 0..<max(1, count) { loops.append(try EventLoop(name: "\(name) \(index)")) }
        self.loops = loops
    }

    /// Wraps existing loops (at least one).
    public init(loops: [EventLoop]) {
        precondition(!loops.isEmpty, "an event loop group needs a loop")
        self.loops = loops
    }

    /// The process-wide group: `EventLoop.shared` plus one more loop per further core. The environment
    /// variable `POLYVOICE_EVENT_LOOPS` (1...64) sets the count instead (e.g. 1 to keep everything on one thread).
    public static let shared: EventLoopGroup = {
        var count = ProcessInfo.processInfo.activeProcessorCount
        if let text = ProcessInfo.processInfo.environment["POLYVOICE_EVENT_LOOPS"], let value = Int(text),
            (1...64).contains(value)
        {
            count = value
        }
        var loops = [EventLoop.shared]
        for index in 1..<max(1, count) {
            do { loops.append(try EventLoop(name: "PolyVoice I/O \(index)")) } catch {
                fatalError("cannot start an event loop: \(error)")
            }
        }
        return EventLoopGroup(loops: loops)
    }()

    /// The next loop, round-robin.
    public func next() -> EventLoop {
        loops[Int(counter.wrappingAdd(1, ordering: .relaxed).oldValue % UInt(loops.count))]
    }
}
