// PortAudio's life in the process: initialised quietly (its device scan makes ALSA and JACK print dozens
// of probe messages on a machine without a sound card) and re-initialised to see hot-plugged devices.
import CPortAudio
import Glibc
import Synchronization

enum PortAudioRuntime {
    private struct State {
        /// The result of the last `Pa_Initialize` (nil before the first).
        var initialization: PaError?
        /// Device streams alive: PortAudio must not be re-initialised under them.
        var streams = 0
    }

    private static let state = Mutex<State>(State())

    /// Initialises PortAudio on first use; throws if that failed.
    static func ensure() throws(AudioDeviceError) {
        let result = state.withLock { state in initialized(&state) }
        guard result == paNoError.rawValue else { throw .unavailable(message(result)) }
    }

    /// Runs `body` on a current device list. PortAudio scans devices only when it initialises, so when
    /// no stream is open it is terminated and initialised again first: devices plugged in (or removed)
    /// since then are seen. With a stream open the last scan is used.
    static func withCurrentDevices<T>(_ body: () -> T) throws(AudioDeviceError) -> T {
        let (result, value) = state.withLock { state -> (PaError, T?) in
            if state.initialization == paNoError.rawValue, state.streams == 0 {
                Pa_Terminate()
                state.initialization = nil
            }
            let result = initialized(&state)
            return (result, result == paNoError.rawValue ? body() : nil)
        }
        guard result == paNoError.rawValue, let value else { throw .unavailable(message(result)) }
        return value
    }

    /// A device stream is about to use PortAudio (until `releaseStream`); initialises it if needed.
    static func retainStream() throws(AudioDeviceError) {
        let result = state.withLock { state -> PaError in
            let result = initialized(&state)
            if result == paNoError.rawValue { state.streams += 1 }
            return result
        }
        guard result == paNoError.rawValue else { throw .unavailable(message(result)) }
    }

    /// A device stream no longer uses PortAudio (closed and released).
    static func releaseStream() {
        state.withLock { $0.streams = max(0, $0.streams - 1) }
    }

    /// PortAudio's text for an error code.
    static func message(_ error: PaError) -> String {
        guard let text = Pa_GetErrorText(error) else { return "PortAudio error \(error)" }
        return String(cString: text)
    }

    /// The initialisation result, initialising now if needed (under the state lock).
    private static func initialized(_ state: inout State) -> PaError {
        if let result = state.initialization { return result }
        let result = quietInitialize()
        state.initialization = result
        return result
    }

    private static func quietInitialize() -> PaError {
        pv_alsa_silence_errors()
        // JACK and OSS probing write to stderr directly; hide stderr for the scan only.
        let saved = dup(STDERR_FILENO)
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        if saved >= 0 && null >= 0 { dup2(null, STDERR_FILENO) }
        let result = Pa_Initialize()
        if saved >= 0 && null >= 0 { dup2(saved, STDERR_FILENO) }
        if saved >= 0 { close(saved) }
        if null >= 0 { close(null) }
        return result
    }
}
