// One 20 ms clock per event loop for every call on it: a single timer per loop instead of one per call,
// so N calls cost one timer wake-up and one timer-heap operation per frame, not N.
import PolyCore

/// Something driven by its loop's frame clock (a call's media: send one frame, play one frame).
public protocol FrameClockListener: AnyObject, Sendable {
    /// Called on the loop thread once per `EventLoop.framePeriod`; `now` is the tick's time.
    func frameTick(at now: Instant)
}

/// Identifies a listener added with `EventLoop.addFrameListener`.
public struct FrameClockSubscription: Hashable, Sendable { let id: UInt64 }

/// The clock's loop-thread state.
struct FrameClockState {
    /// Held weakly: a listener dropped without being removed just stops ticking.
    struct Entry {
        let id: UInt64
        weak var listener: (any FrameClockListener)?
    }
    var listeners: [Entry] = []
    /// The next tick's ideal time; nil while no listener is added.
    var nextTick: Instant?
    var nextID: UInt64 = 0
}

extension EventLoop {
    /// The period of the frame clock (one audio frame).
    public static let framePeriod: Duration = .milliseconds(20)

    /// Adds `listener` to this loop's frame clock (started with the first listener). From any thread; the
    /// first tick comes at the clock's next period. The loop holds `listener` weakly.
    public func addFrameListener(_ listener: any FrameClockListener) -> FrameClockSubscription {
        let subscription = FrameClockSubscription(id: takeID())
        execute { [self] in
            frameClock.listeners.append(.init(id: subscription.id, listener: listener))
            if frameClock.nextTick == nil {
                frameClock.nextTick = Instant.now() + Self.framePeriod
                scheduleFrameTick()
            }
        }
        return subscription
    }

    /// How late this loop's frame clock has ticked since the loop started: its lag (from any thread).
    public var frameClockLag: EventLoopLagSnapshot { frameClockLagRecorder.snapshot() }

    /// Removes a listener (no more ticks once this has run on the loop; at once when called on it).
    public func removeFrameListener(_ subscription: FrameClockSubscription) {
        let remove: @Sendable (EventLoop) -> Void = { loop in
            loop.frameClock.listeners.removeAll { $0.id == subscription.id }
        }
        if isOnLoopThread { remove(self) } else { execute { [self] in remove(self) } }
    }

    /// Arms the clock at the next tick's ideal time, but when behind no sooner than 2 ms from now: the loop
    /// then reads the sockets between catch-up ticks, so a late burst of sends is not played out by a far
    /// end on the same loop before its packets were even received.
    private func scheduleFrameTick() {
        guard let next = frameClock.nextTick else { return }
        schedule(at: max(next, Instant.now() + .milliseconds(2))) { [self] in frameTick() }
    }

    /// One tick for every listener. Ideal times advance by exactly one period so the pace does not drift;
    /// after a stall of more than 200 ms the clock restarts from now. With no listener left the clock stops.
    private func frameTick() {
        guard let scheduled = frameClock.nextTick else { return }
        guard !frameClock.listeners.isEmpty else {
            frameClock.nextTick = nil
            return
        }
        let now = Instant.now()
        frameClockLagRecorder.record(latenessNanoseconds: now.nanoseconds - scheduled.nanoseconds)
        var released = false
        for entry in frameClock.listeners {
            if let listener = entry.listener { listener.frameTick(at: now) } else { released = true }
        }
        if released { frameClock.listeners.removeAll { $0.listener == nil } }
        var next = scheduled + Self.framePeriod
        if now - next > .milliseconds(200) { next = now + Self.framePeriod }
        frameClock.nextTick = next
        scheduleFrameTick()
    }
}
