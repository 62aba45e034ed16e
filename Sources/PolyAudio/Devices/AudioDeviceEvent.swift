// What happens to a device source or sink over its life, for `AudioState` and logs.

/// A change in the device behind a `DeviceSource` or `DeviceSink`.
public enum AudioDeviceEvent: Sendable, Equatable {
    /// The stream on `device` (its name) is open and running.
    case active(device: String)
    /// The stream on `device` stopped, errored or its callbacks stopped for over 500 ms.
    case lost(device: String, reason: String)
    /// After `from` was lost, audio moved to the default device `to`.
    case fellBack(from: String, to: String)
    /// `switchDevice` moved audio to `to`.
    case switched(to: String)
}
