// Keeps one direction's device stream running: the pacing thread reads/writes through it, a watchdog
// thread notices a lost device and falls back to the default one, and `switchDevice` swaps devices.
import PolyCore
import Synchronization

final class DeviceController: @unchecked Sendable {
    let direction: AudioDirection
    let counters = DeviceCounters()
    let events: AsyncStream<AudioDeviceEvent>
    private let continuation: AsyncStream<AudioDeviceEvent>.Continuation
    /// The running stream (nil while lost). Locked by the pacing thread for each frame, never by the
    /// real-time callback.
    private let current: Mutex<DeviceStream?>
    private let fallbackToDefault: Bool
    private let closed = AtomicFlag()
    /// Counts stream installations (open, switch, fallback), so the watchdog restarts its timing.
    private let generation = Atomic<Int>(0)
    /// How long callbacks may stop before the device counts as lost.
    static let silenceLimit: Duration = .milliseconds(500)
    /// How long callbacks may pause in a newly opened stream (sound servers prebuffer).
    static let startLimit: Duration = .seconds(3)

    init(device: AudioDeviceInfo?, direction: AudioDirection, fallbackToDefault: Bool) throws(AudioDeviceError) {
        self.direction = direction
        self.fallbackToDefault = fallbackToDefault
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(32))
        let chosen = try Self.resolve(device, direction)
        current = Mutex(try DeviceStream(device: chosen, direction: direction, counters: counters))
        continuation.yield(.active(device: chosen.name))
        // The watchdog holds the controller only weakly, so dropping the source/sink ends it.
        DetachedThread.start(name: "polyvoice-\(direction)-watchdog") { [weak self] in
            Self.watch { [weak self] in self }
        }
    }

    deinit { close() }

    private static func resolve(_ device: AudioDeviceInfo?, _ direction: AudioDirection) throws(AudioDeviceError)
        -> AudioDeviceInfo
    {
        if let device { return device }
        return try AudioDevices.defaultDevice(for: direction)
    }

    /// The device in use (nil while lost and not yet replaced).
    var device: AudioDeviceInfo? { current.withLock { $0?.device } }

    /// Runs `body` on the running stream (pacing thread); false when there is none.
    @inline(__always)
    func withStream(_ body: (DeviceStream) -> Void) -> Bool {
        current.withLock { stream in
            guard let stream else { return false }
            body(stream)
            return true
        }
    }

    /// Opens `device` (nil: the default), then swaps it in and closes the old stream.
    func switchDevice(to device: AudioDeviceInfo?) throws(AudioDeviceError) {
        let chosen = try Self.resolve(device, direction)
        let fresh = try DeviceStream(device: chosen, direction: direction, counters: counters)
        // After `close` (which raises the flag before taking the lock) the fresh stream is not kept.
        let (kept, old) = current.withLock { stream -> (Bool, DeviceStream?) in
            guard !closed.isRaised else { return (false, nil) }
            let old = stream
            stream = fresh
            generation.add(1, ordering: .relaxed)
            return (true, old)
        }
        old?.close()
        guard kept else {
            fresh.close()
            return
        }
        continuation.yield(.switched(to: chosen.name))
    }

    /// Stops the stream and (within 100 ms) the watchdog; finishes `events`. Idempotent.
    func close() {
        guard !closed.isRaised else { return }
        closed.raise()
        takeStream()?.close()
        continuation.finish()
    }

    /// What the watchdog remembers between checks.
    private struct WatchState {
        /// The stream installation being watched (see `generation`) and when it was first seen.
        var generation = -1
        var installedAt = ContinuousClock.now
        var lastCallbacks = 0
        var lastProgress = ContinuousClock.now
        var lostName: String?
        var nextRetry = ContinuousClock.now
    }

    /// The watchdog loop: every 100 ms, while the controller exists and is open, `inspect`s it.
    private static func watch(_ owner: () -> DeviceController?) {
        var state = WatchState()
        while true {
            DetachedThread.sleep(seconds: 0.1)
            guard let controller = owner(), !controller.closed.isRaised else { return }
            controller.inspect(&state, now: .now)
        }
    }

    /// Declares the device lost when its stream stopped or its callbacks stopped for `silenceLimit`
    /// (`startLimit` in a stream's first seconds, while sound servers prebuffer); once lost, tries the
    /// default device every second (when falling back is on).
    private func inspect(_ state: inout WatchState, now: ContinuousClock.Instant) {
        // A newly installed stream (opened, switched to, fallen back to) is watched from scratch.
        let callbacks = counters.callbacks.load(ordering: .relaxed)
        let installed = generation.load(ordering: .relaxed)
        if installed != state.generation {
            state = WatchState(generation: installed, installedAt: now, lastCallbacks: callbacks, lastProgress: now)
        }
        if let lost = state.lostName {
            guard fallbackToDefault && now >= state.nextRetry else { return }
            state.nextRetry = now + .seconds(1)
            if let name = reopenDefault() { continuation.yield(.fellBack(from: lost, to: name)) }
            return
        }
        if callbacks != state.lastCallbacks {
            state.lastCallbacks = callbacks
            state.lastProgress = now
        }
        let (active, name) = current.withLock { ($0?.isActive ?? false, $0?.device.name) }
        guard let name else { return }
        let starting = now - state.installedAt < Self.startLimit
        let reason: String
        if !active {
            reason = "stream stopped"
        } else if now - state.lastProgress > (starting ? Self.startLimit : Self.silenceLimit) {
            reason = starting ? "no audio callbacks within 3 s of opening" : "no audio callbacks for over 500 ms"
        } else {
            return
        }
        takeStream()?.close()
        continuation.yield(.lost(device: name, reason: reason))
        state.lostName = name
        state.nextRetry = now
    }

    /// Removes the running stream, to close it outside the lock (closing can take milliseconds).
    private func takeStream() -> DeviceStream? {
        current.withLock { stream in
            let taken = stream
            stream = nil
            return taken
        }
    }

    /// Opens the default device after a loss; returns its name, or nil if that failed too.
    private func reopenDefault() -> String? {
        guard let device = try? AudioDevices.defaultDevice(for: direction),
            let fresh = try? DeviceStream(device: device, direction: direction, counters: counters)
        else { return nil }
        // Kept only if nothing else was installed meanwhile (`switchDevice`) and not closed.
        let kept = current.withLock { stream in
            guard !closed.isRaised, stream == nil else { return false }
            stream = fresh
            generation.add(1, ordering: .relaxed)
            return true
        }
        if !kept { fresh.close() }
        return kept ? device.name : nil
    }
}
