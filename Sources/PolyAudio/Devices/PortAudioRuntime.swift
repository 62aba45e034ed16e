// PortAudio is initialised once per process, quietly: its device scan makes ALSA and JACK print
// dozens of probe messages on a machine without a sound card.
import CPortAudio
import Glibc

enum PortAudioRuntime {
    /// The result of the process's single `Pa_Initialize` (never terminated: streams may live until exit).
    private static let initialization: PaError = {
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
    }()

    /// Initialises PortAudio on first use; throws if that failed.
    static func ensure() throws(AudioDeviceError) {
        let result = initialization
        guard result == paNoError.rawValue else { throw .unavailable(message(result)) }
    }

    /// PortAudio's text for an error code.
    static func message(_ error: PaError) -> String {
        guard let text = Pa_GetErrorText(error) else { return "PortAudio error \(error)" }
        return String(cString: text)
    }
}
