// The one I/O thread of a process: epoll over sockets, a timerfd for timers, an eventfd to wake it.
import CLinux
import Dispatch
import Glibc
import PolyCore

/// An epoll-based event loop on its own thread, shared by all calls (`EventLoop.shared`).
///
/// Threading contract: every method may be called from any thread. Handlers, timers and `execute` blocks
/// run on the loop thread, one at a time, in order; state they touch should be confined to that thread
/// (check with `isOnLoopThread`). Calls made off the loop thread are queued and take effect in call
/// order on the loop thread, so `unregister`/`cancel` issued after `register`/`schedule` always win.
/// Received datagrams are passed as a view of one reused buffer, valid only during the handler call.
public final class EventLoop: @unchecked Sendable {
    /// Identifies a registered socket or file descriptor.
    public struct Registration: Hashable, Sendable { let id: UInt64 }
    /// Identifies a scheduled timer.
    public struct Timer: Hashable, Sendable { let id: UInt64 }

    public typealias DatagramHandler =
        @Sendable (_ datagram: UnsafeRawBufferPointer, _ source: TransportAddress) -> Void
    /// What epoll reported for a stream socket (see `register(streamDescriptor:writable:onEvents:)`).
    public typealias StreamEventHandler = @Sendable (_ events: StreamEvents) -> Void

    /// Readiness of a stream socket.
    public struct StreamEvents: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let readable = StreamEvents(rawValue: 1)
        public static let writable = StreamEvents(rawValue: 2)
        /// EPOLLERR or EPOLLHUP: the connection failed or both directions are closed.
        public static let failed = StreamEvents(rawValue: 4)
    }

    /// The process-wide loop, started on first use.
    public static let shared: EventLoop = {
        do { return try EventLoop(name: "PolyVoice I/O") } catch { fatalError("cannot start the event loop: \(error)") }
    }()

    private enum Source {
        case datagrams(UDPSocket, DatagramHandler)
        case readable(Int32, @Sendable () -> Void)
        case stream(Int32, StreamEventHandler)

        var fileDescriptor: Int32 {
            switch self {
            case .datagrams(let socket, _): socket.fileDescriptor
            case .readable(let descriptor, _), .stream(let descriptor, _): descriptor
            }
        }
    }

    // Fixed at start.
    private let epoll: Int32
    private let wakeup: Int32
    private let timerDescriptor: Int32
    private let done = DispatchSemaphore(value: 0)
    private nonisolated(unsafe) var thread = pthread_t()

    // Shared between threads, under `lock`.
    private let lock = PlainLock()
    private var queued: [@Sendable () -> Void] = []
    private var nextID: UInt64 = 16  // ids below are reserved for the loop's own descriptors
    private var stopping = false

    // Loop thread only.
    private var sources: [UInt64: Source] = [:]
    private var timers = TimerHeap()
    private var timerWork: [UInt64: @Sendable () -> Void] = [:]
    private var armedDeadline: Instant?
    /// The shared 20 ms frame clock's listeners and schedule (see EventLoopFrameClock.swift).
    var frameClock = FrameClockState()
    /// How late each frame-clock tick ran (written on the loop thread, read from any).
    let frameClockLagRecorder = EventLoopLagRecorder()
    private let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
    private static let wakeupToken: UInt64 = 1
    private static let timerToken: UInt64 = 2
    /// Datagrams read per socket per wake-up, so one busy socket cannot starve the others.
    private static let readBudget = 64

    /// Starts a loop on a new thread. Most code should use `shared`; tests may start their own.
    public init(name: String = "PolyVoice I/O") throws(SocketError) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw SocketError("epoll_create1") }
        wakeup = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        timerDescriptor = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard wakeup >= 0, timerDescriptor >= 0 else {
            let failure = SocketError("eventfd/timerfd_create")
            Glibc.close(epoll)
            throw failure
        }
        try addToEpoll(wakeup, token: Self.wakeupToken)
        try addToEpoll(timerDescriptor, token: Self.timerToken)
        let started = DispatchSemaphore(value: 0)
        DetachedThread.start(name: name) { [self] in
            self.thread = pthread_self()
            started.signal()
            run()
        }
        started.wait()
    }

    deinit {
        receiveBuffer.deallocate()
        Glibc.close(epoll)
        Glibc.close(wakeup)
        Glibc.close(timerDescriptor)
    }

    /// True on the loop's thread.
    public var isOnLoopThread: Bool { pthread_equal(pthread_self(), thread) != 0 }

    // MARK: Public API (any thread)

    /// Runs `work` on the loop thread (soon, after what is already queued).
    public func execute(_ work: @escaping @Sendable () -> Void) {
        lock.lock()
        let wasEmpty = queued.isEmpty
        queued.append(work)
        lock.unlock()
        if wasEmpty {
            var one: UInt64 = 1
            _ = write(wakeup, &one, 8)
        }
    }

    /// Calls `handler` on the loop thread for each datagram `socket` receives.
    @discardableResult
    public func register(_ socket: UDPSocket, onDatagram handler: @escaping DatagramHandler) -> Registration {
        let registration = Registration(id: takeID())
        onLoop { $0.add(.datagrams(socket, handler), id: registration.id) }
        return registration
    }

    /// Calls `handler` on the loop thread whenever `fileDescriptor` is readable (level-triggered: read it all).
    @discardableResult
    public func register(fileDescriptor: Int32, onReadable handler: @escaping @Sendable () -> Void) -> Registration {
        let registration = Registration(id: takeID())
        onLoop { $0.add(.readable(fileDescriptor, handler), id: registration.id) }
        return registration
    }

    /// Calls `handler` on the loop thread when the stream socket `fileDescriptor` is readable, failed, or
    /// (while `writable` interest is on) writable. Level-triggered: read until EAGAIN, and turn writable
    /// interest off once nothing is left to write (`setWritableInterest`), or the loop spins.
    @discardableResult
    public func register(
        streamDescriptor fileDescriptor: Int32, writable: Bool, onEvents handler: @escaping StreamEventHandler
    ) -> Registration {
        let registration = Registration(id: takeID())
        onLoop { $0.add(.stream(fileDescriptor, handler), id: registration.id, writable: writable) }
        return registration
    }

    /// Turns writable interest of a stream registration on or off.
    public func setWritableInterest(_ registration: Registration, _ writable: Bool) {
        onLoop { loop in
            guard let source = loop.sources[registration.id] else { return }
            var event = epoll_event()
            event.events = EPOLLIN.rawValue | (writable ? EPOLLOUT.rawValue : 0)
            event.data.u64 = registration.id
            _ = epoll_ctl(loop.epoll, EPOLL_CTL_MOD, source.fileDescriptor, &event)
        }
    }

    /// Stops watching a socket or descriptor (it is not closed).
    public func unregister(_ registration: Registration) {
        onLoop { loop in
            guard let source = loop.sources.removeValue(forKey: registration.id) else { return }
            _ = epoll_ctl(loop.epoll, EPOLL_CTL_DEL, source.fileDescriptor, nil)
        }
    }

    /// Runs `work` on the loop thread at `deadline` (on `Instant.now()`'s clock); timers due at the same
    /// instant run in the order they were scheduled.
    @discardableResult
    public func schedule(at deadline: Instant, _ work: @escaping @Sendable () -> Void) -> Timer {
        let timer = Timer(id: takeID())
        // On the loop thread (every call's timer and the frame clock) directly: no closure to allocate.
        if isOnLoopThread {
            addTimer(timer, at: deadline, work)
        } else {
            execute { [self] in addTimer(timer, at: deadline, work) }
        }
        return timer
    }

    /// Cancels a timer that has not run yet (no effect otherwise).
    public func cancel(_ timer: Timer) {
        if isOnLoopThread {
            timerWork[timer.id] = nil
        } else {
            execute { [self] in timerWork[timer.id] = nil }
        }
    }

    /// Stops the loop after the work already queued and waits for its thread to end (unless called on it).
    /// Registered descriptors are not closed. Idempotent.
    public func shutdown() {
        lock.lock()
        let already = stopping
        stopping = true
        lock.unlock()
        guard !already else { return }
        var one: UInt64 = 1
        _ = write(wakeup, &one, 8)
        if !isOnLoopThread { done.wait() }
    }

    // MARK: Loop thread

    private func onLoop(_ body: @escaping @Sendable (EventLoop) -> Void) {
        if isOnLoopThread { body(self) } else { execute { [self] in body(self) } }
    }

    func takeID() -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        nextID += 1
        return nextID
    }

    private func addTimer(_ timer: Timer, at deadline: Instant, _ work: @escaping @Sendable () -> Void) {
        timerWork[timer.id] = work
        timers.insert(.init(deadline: deadline, id: timer.id))
        armTimer()
    }

    private func addToEpoll(_ descriptor: Int32, token: UInt64, writable: Bool = false) throws(SocketError) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | (writable ? EPOLLOUT.rawValue : 0)
        event.data.u64 = token
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0 else { throw SocketError("epoll_ctl(ADD)") }
    }

    private func add(_ source: Source, id: UInt64, writable: Bool = false) {
        guard (try? addToEpoll(source.fileDescriptor, token: id, writable: writable)) != nil else { return }
        sources[id] = source
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, 64, -1) }
            if count < 0 && errno != EINTR { break }
            for index in 0..<max(0, Int(count)) {
                switch events[index].data.u64 {
                case Self.wakeupToken: drainWakeup()
                case Self.timerToken: fireTimers()
                case let id: service(id, events: events[index].events)
                }
            }
            lock.lock()
            let stop = stopping && queued.isEmpty
            lock.unlock()
            if stop { break }
        }
        done.signal()
    }

    private func drainWakeup() {
        var value: UInt64 = 0
        _ = read(wakeup, &value, 8)
        lock.lock()
        let work = queued
        queued.removeAll(keepingCapacity: true)
        lock.unlock()
        for item in work { item() }
    }

    private func service(_ id: UInt64, events: UInt32) {
        guard let source = sources[id] else { return }
        switch source {
        case .readable(_, let handler):
            handler()
        case .stream(_, let handler):
            var ready: StreamEvents = []
            if events & EPOLLIN.rawValue != 0 { ready.insert(.readable) }
            if events & EPOLLOUT.rawValue != 0 { ready.insert(.writable) }
            if events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { ready.insert(.failed) }
            handler(ready)
        case .datagrams(let socket, let handler):
            for _ in 0..<Self.readBudget {
                // Still registered (the handler may unregister)? Asked by index: `sources[id] != nil` copies the source.
                guard sources.index(forKey: id) != nil, let received = try? socket.receive(into: receiveBuffer) else {
                    return
                }
                handler(UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<received.count]), received.source)
            }
        }
    }

    private func fireTimers() {
        var expirations: UInt64 = 0
        _ = read(timerDescriptor, &expirations, 8)
        armedDeadline = nil
        let now = Instant.now()
        while let first = timers.first, first.deadline <= now {
            _ = timers.removeFirst()
            if let work = timerWork.removeValue(forKey: first.id) { work() }
        }
        armTimer()
    }

    /// Points the timerfd at the earliest live timer (absolute CLOCK_MONOTONIC, the clock of `Instant.now()`).
    private func armTimer() {
        while let first = timers.first, timerWork[first.id] == nil { _ = timers.removeFirst() }
        guard let next = timers.first?.deadline else { return }
        if let armed = armedDeadline, armed <= next { return }
        armedDeadline = next
        let nanoseconds = max(next.nanoseconds, 1)
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(nanoseconds / 1_000_000_000)
        spec.it_value.tv_nsec = Int(nanoseconds % 1_000_000_000)
        _ = timerfd_settime(timerDescriptor, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }
}
