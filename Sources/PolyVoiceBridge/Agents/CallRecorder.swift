// Records the caller of one call to `<dir>/<callId>.wav`.
import FoundationEssentials
import PolyAudio

/// Collects the caller's mono audio and writes it as a WAV at the agent's rate when the call ends.
/// Capacity for `reserveSeconds` at 48 kHz is reserved up front so recording rarely allocates per frame.
public final class CallRecorder {
    public let url: URL
    private var samples: [Int16] = []

    public init(directory: URL, callID: String, reserveSeconds: Int = 120) {
        url = directory.appendingPathComponent("\(callID).wav")
        samples.reserveCapacity(reserveSeconds * AgentAudio.sampleRate)
    }

    public func append(_ frame: UnsafeBufferPointer<Int16>) { samples.append(contentsOf: frame) }

    public var recordedSamples: Int { samples.count }

    /// Writes the WAV at `sampleRate`, the agent's (creating the directory if needed).
    public func finish(sampleRate: Int) throws {
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Atomic: a reader never sees a half-written file.
        let wav = WAVFile(sampleRate: sampleRate, layout: .mono, samples: .int16(samples))
        try Data(wav.encoded()).write(to: url, options: .atomic)
    }
}
