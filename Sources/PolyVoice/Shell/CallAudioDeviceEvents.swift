// Device changes (lost, fell back to the default, switched) reach the call's `audioStates`.
import PolyAudio

extension CallAudio {
    /// Follows the open device endpoints' events until they finish (when the audio closes), publishing
    /// each change on `audioStates`.
    func forwardDeviceEvents(to audioStates: ReplayingStream<AudioState>) {
        var streams: [(PolyCall.AudioDeviceDirection, AsyncStream<AudioDeviceEvent>)] = []
        if let device = source.endpoint as? DeviceSource { streams.append((.input, device.events)) }
        if let device = sink.endpoint as? DeviceSink { streams.append((.output, device.events)) }
        for (direction, events) in streams {
            Task {
                for await event in events {
                    var state = audioStates.latest ?? AudioState()
                    state.apply(event, for: direction)
                    if state != audioStates.latest { audioStates.yield(state) }
                }
            }
        }
    }
}

extension AudioState {
    /// The device status and name after `event` on the `direction` side.
    mutating func apply(_ event: AudioDeviceEvent, for direction: PolyCall.AudioDeviceDirection) {
        let status: DeviceStatus
        var name: String?
        switch event {
        case .active(let device):
            status = .active
            name = device
        case .lost:
            status = .lost
        case .fellBack(let from, let to):
            status = .fellBack(from: from)
            name = to
        case .switched(let to):
            status = .active
            name = to
        }
        switch direction {
        case .input:
            inputStatus = status
            if let name { inputName = name }
        case .output:
            outputStatus = status
            if let name { outputName = name }
        }
    }
}
