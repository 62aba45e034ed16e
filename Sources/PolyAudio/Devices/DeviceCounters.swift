// Health figures of a device stream, updated by the real-time callback with atomics only.
import Synchronization

/// A snapshot of a device source's or sink's counters (totals across device switches).
public struct AudioDeviceCounters: Sendable, Equatable {
    /// Real-time callbacks PortAudio has made.
    public var callbacks: Int
    /// Samples (at the device's rate, per channel) captured from or played to the device.
    public var samples: Int
    /// Playback: callbacks that ran out of audio and played silence. Capture: 20 ms reads that found
    /// less than a frame captured.
    public var underruns: Int
    /// Samples dropped because a ring was full or latency had to be cut.
    public var overruns: Int
}

/// The live counters, shared by the callback (writer) and any reader.
final class DeviceCounters: Sendable {
    let callbacks = Atomic<Int>(0)
    let samples = Atomic<Int>(0)
    let underruns = Atomic<Int>(0)
    let overruns = Atomic<Int>(0)

    var snapshot: AudioDeviceCounters {
        AudioDeviceCounters(
            callbacks: callbacks.load(ordering: .relaxed), samples: samples.load(ordering: .relaxed),
            underruns: underruns.load(ordering: .relaxed), overruns: overruns.load(ordering: .relaxed))
    }
}
