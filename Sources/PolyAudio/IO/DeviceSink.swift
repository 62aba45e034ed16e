// The speaker (or any playback device) as the call's output, through PortAudio.

/// Plays 48 kHz mono frames on an audio device at its native rate.
///
/// `write` (pacing thread) resamples into a lock-free ring; the PortAudio callback only drains it and
/// plays silence when it runs dry (an underrun). A lost device is reported on `events` and, with
/// `fallbackToDefault`, replaced by the default device; meanwhile audio is dropped.
public final class DeviceSink: AudioFrameSink, @unchecked Sendable {
    private let controller: DeviceController

    /// Opens `device` (nil: the system default output) and starts playing (silence until written).
    public init(device: AudioDeviceInfo? = nil, fallbackToDefault: Bool = true) throws(AudioDeviceError) {
        controller = try DeviceController(device: device, direction: .output, fallbackToDefault: fallbackToDefault)
    }

    /// Opens the output device chosen by `AudioDevices.select(byIdOrName:for:)`: "default", an id, or
    /// part of a name (as `AudioInput.device` / `AudioOutput.device` and `--output DEVICE` give it).
    public convenience init(named query: String, fallbackToDefault: Bool = true) throws(AudioDeviceError) {
        try self.init(
            device: AudioDevices.select(byIdOrName: query, for: .output), fallbackToDefault: fallbackToDefault)
    }

    /// Device changes: `.active` first, then `.lost`, `.fellBack`, `.switched`; finishes on `close`.
    public var events: AsyncStream<AudioDeviceEvent> { controller.events }

    /// The device playing now (nil while lost).
    public var device: AudioDeviceInfo? { controller.device }

    /// Callbacks, played samples, underruns and overruns since creation (across switches).
    public var counters: AudioDeviceCounters { controller.counters.snapshot }

    public var name: String { controller.device?.name ?? "no output device" }

    public func write(_ samples: UnsafeBufferPointer<Int16>) {
        _ = controller.withStream { $0.write(samples) }
    }

    /// Moves playback to `device` (nil: the default output) without interrupting the call.
    public func switchDevice(to device: AudioDeviceInfo?) throws(AudioDeviceError) {
        try controller.switchDevice(to: device)
    }

    public func close() { controller.close() }
}
