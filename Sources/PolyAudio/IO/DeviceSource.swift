// The microphone (or any capture device) as the call's input, through PortAudio.

/// Captures from an audio device at its native rate and delivers 48 kHz mono frames.
///
/// The PortAudio callback only fills a lock-free ring; `read` (pacing thread) drains and resamples it.
/// A lost device is reported on `events` and, with `fallbackToDefault`, replaced by the default
/// device; meanwhile `read` returns silence.
public final class DeviceSource: AudioFrameSource, @unchecked Sendable {
    private let controller: DeviceController

    /// Opens `device` (nil: the system default input) and starts capturing.
    public init(device: AudioDeviceInfo? = nil, fallbackToDefault: Bool = true) throws(AudioDeviceError) {
        controller = try DeviceController(device: device, direction: .input, fallbackToDefault: fallbackToDefault)
    }

    /// Opens the input device chosen by `AudioDevices.select(byIdOrName:for:)`: "default", an id, or
    /// part of a name (as `AudioInput.device` / `AudioOutput.device` and `--input DEVICE` give it).
    public convenience init(named query: String, fallbackToDefault: Bool = true) throws(AudioDeviceError) {
        try self.init(
            device: AudioDevices.select(byIdOrName: query, for: .input), fallbackToDefault: fallbackToDefault)
    }

    /// Device changes: `.active` first, then `.lost`, `.fellBack`, `.switched`; finishes on `close`.
    public var events: AsyncStream<AudioDeviceEvent> { controller.events }

    /// The device capturing now (nil while lost).
    public var device: AudioDeviceInfo? { controller.device }

    /// Callbacks, captured samples, underruns and overruns since creation (across switches).
    public var counters: AudioDeviceCounters { controller.counters.snapshot }

    public var name: String { controller.device?.name ?? "no input device" }

    public var endOfStream: Bool { false }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        var got = 0
        if !controller.withStream({ got = $0.read(into: buffer) }) { buffer.silence(from: 0) }
        return got
    }

    /// Moves capture to `device` (nil: the default input) without interrupting the caller.
    public func switchDevice(to device: AudioDeviceInfo?) throws(AudioDeviceError) {
        try controller.switchDevice(to: device)
    }

    public func close() { controller.close() }
}
