// What an --input / --output argument names, the same way for every command: a file path is always a file
// (or the null sink), never looked up as a device, so `--output /dev/null` or `--output ./reply` just work.
import FoundationEssentials
import Glibc

enum AudioEndpointArgument: Equatable {
    /// The system's default device ("default").
    case defaultDevice
    /// Silence in, discard out ("null" or /dev/null).
    case null
    /// "-": a WAV stream on standard input (read to its end before the call starts) or standard output.
    case standardStream
    /// A WAV file: anything with a '/', a .wav name, or a name that exists as a file here.
    case file(String)
    /// A device name, part of one, or an id from `polyvoice devices`.
    case device(String)

    init(_ text: String) {
        switch text {
        case "default": self = .defaultDevice
        case "null", "/dev/null": self = .null
        case "-": self = .standardStream
        case let path where path.contains("/") || path.lowercased().hasSuffix(".wav"):
            self = .file(path)
        case let name where FileManager.default.fileExists(atPath: name):
            self = .file(name)
        default: self = .device(text)
        }
    }

    /// A file on disk that can be read back after writing.
    var isRegularFile: Bool {
        if case .file = self { return true }
        return false
    }
}

/// Standard output as an audio stream: the WAV goes to the original stdout, and everything the command
/// prints (status line, summary, JSON) moves to stderr so it cannot corrupt the audio.
enum StandardAudioStream {
    /// Path of the WAV input stream.
    static let inputPath = "/dev/stdin"

    /// Moves the command's own output to stderr and returns a path that writes to the original stdout.
    static func takeStandardOutput() throws -> String {
        let audio = dup(STDOUT_FILENO)
        guard audio >= 0, dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else {
            throw UsageError("cannot use standard output for audio: \(String(cString: strerror(errno)))")
        }
        return "/dev/fd/\(audio)"
    }
}
