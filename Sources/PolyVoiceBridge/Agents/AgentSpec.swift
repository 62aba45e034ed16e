// Parsing `--agent` (echo, echo:MS, play:FILE, loop:FILE, script:DIR) and making per-call agents.
import FoundationEssentials
import PolyAudio

/// Which agent a bridge runs, as given on the command line.
public enum AgentSpec: Sendable, Equatable, CustomStringConvertible {
    case echo(delayMilliseconds: Int)
    case play(file: String, loop: Bool)
    /// Prompts `DIR/1.wav`, `2.wav`… answering the caller's turns with the given timing.
    case script(directory: String, timing: ScriptTiming = .immediate)

    /// Parses `echo`, `echo:MS`, `play:FILE`, `loop:FILE` (play looped) or `script:DIR`.
    public init(parsing text: String) throws(AgentError) {
        let (kind, argument) =
            text.firstIndex(of: ":").map { (String(text[..<$0]), String(text[text.index(after: $0)...])) }
            ?? (text, nil)
        switch (kind, argument) {
        case ("echo", nil): self = .echo(delayMilliseconds: 0)
        case ("echo", let value?):
            guard let ms = Int(value), (0...10_000).contains(ms) else {
                throw .invalidSpec("echo delay must be 0-10000 ms, not '\(value)'")
            }
            self = .echo(delayMilliseconds: ms)
        case ("play", let file?) where !file.isEmpty: self = .play(file: file, loop: false)
        case ("loop", let file?) where !file.isEmpty: self = .play(file: file, loop: true)
        case ("script", let directory?) where !directory.isEmpty:
            self = .script(directory: directory, timing: .immediate)
        default: throw .invalidSpec("unknown agent '\(text)' (echo[:MS], play:FILE, loop:FILE, script:DIR)")
        }
    }

    public var description: String {
        switch self {
        case .echo(let ms): ms == 0 ? "echo" : "echo:\(ms)"
        case .play(let file, let loop): (loop ? "loop:" : "play:") + file
        case .script(let directory, let timing) where timing == .immediate: "script:" + directory
        case .script(let directory, let timing): "script:\(directory) (\(timing))"
        }
    }
}

/// Why an agent could not be set up.
public enum AgentError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidSpec(String)
    case unreadable(String)

    public var description: String {
        switch self {
        case .invalidSpec(let why): why
        case .unreadable(let why): why
        }
    }
}

/// An agent spec with its audio loaded once (at bridge start), making one agent per call.
public struct AgentTemplate: Sendable {
    public let spec: AgentSpec
    /// The echo agent's media profile.
    public let echoProfile: EchoProfile
    private let audio: [(name: String, samples: [Int16])]

    /// Loads the files the spec names (as 48 kHz mono). Throws if they are missing or unreadable.
    public init(_ spec: AgentSpec, echoProfile: EchoProfile = .faithful) throws(AgentError) {
        self.spec = spec
        self.echoProfile = echoProfile
        switch spec {
        case .echo: audio = []
        case .play(let file, _):
            audio = [(file, try Self.load(URL(fileURLWithPath: file)))]
        case .script(let directory, let timing):
            try timing.validate()
            var prompts: [(String, [Int16])] = []
            let base = URL(fileURLWithPath: directory)
            while FileManager.default.fileExists(
                atPath: base.appendingPathComponent("\(prompts.count + 1).wav").path)
            {
                let name = "\(prompts.count + 1).wav"
                prompts.append((name, try Self.load(base.appendingPathComponent(name))))
            }
            guard !prompts.isEmpty else { throw .unreadable("\(directory) holds no 1.wav") }
            audio = prompts
        }
    }

    /// A fresh agent for one call; `recordDirectory` receives `<callId>.wav` (and the script timeline).
    public func makeAgent(callID: String, recordDirectory: URL?) -> any BridgeAgent {
        let recorder = recordDirectory.map { CallRecorder(directory: $0, callID: callID) }
        switch spec {
        case .echo(let ms):
            return EchoAgent(delayMilliseconds: ms, recorder: recorder, mediaProfile: echoProfile.mediaProfile)
        case .play(_, let loop): return PlayAgent(samples: audio[0].samples, loop: loop, recorder: recorder)
        case .script(_, let timing):
            return ScriptAgent(
                prompts: audio, callID: callID, timing: timing, timelineDirectory: recordDirectory, recorder: recorder)
        }
    }

    private static func load(_ url: URL) throws(AgentError) -> [Int16] {
        do { return try WAVFile.readPipelineSamples(from: url) } catch {
            throw .unreadable("cannot read \(url.path): \(error)")
        }
    }
}
