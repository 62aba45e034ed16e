// A WAV file as the caller's voice: loaded and converted to 48 kHz mono up front, then read frame by frame.
import FoundationEssentials

/// Plays a WAV file (any rate, mono or stereo, 16-bit or float) as the call's input.
///
/// The file is read and converted when the source is made, so `read` only copies. Thread safety:
/// use from one thread at a time (the pacing thread).
public final class WAVFileSource: AudioFrameSource, @unchecked Sendable {
    /// What happens once the file (or `duration`) is used up.
    public enum Ending: Sendable, Equatable {
        /// Keep sending silence; `endOfStream` stays false (the call goes on).
        case silence
        /// Report `endOfStream` (the caller may hang up).
        case end
    }

    public let url: URL
    public let name: String
    private let samples: [Int16]
    private let loop: Bool
    private let ending: Ending
    /// Samples still to give out before the ending (`Int.max` for an endless loop).
    private var remaining: Int
    private var position = 0

    /// - Parameters:
    ///   - loop: start again at the end of the file (until `duration`, if any).
    ///   - duration: stop after this much audio (looped or padded with silence up to it).
    ///   - ending: what follows the end of the audio.
    public init(url: URL, loop: Bool = false, duration: Duration? = nil, ending: Ending = .end) throws(WAVError) {
        self.url = url
        self.name = "file \(url.lastPathComponent)"
        self.samples = try WAVFile.readPipelineSamples(from: url)
        self.loop = loop && !samples.isEmpty
        self.ending = ending
        if let duration {
            let (seconds, attoseconds) = duration.components
            remaining = max(0, Int(seconds) * 48000 + Int(attoseconds / 20_833_333_333_333))
        } else {
            remaining = self.loop ? .max : samples.count
        }
    }

    public var endOfStream: Bool { ending == .end && remaining == 0 }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        var filled = 0
        samples.withUnsafeBufferPointer { source in
            while filled < buffer.count && remaining > 0 {
                if position == source.count && loop { position = 0 }
                let wanted = min(buffer.count - filled, remaining)
                let count: Int
                if position < source.count {
                    count = min(wanted, source.count - position)
                    (buffer.baseAddress! + filled).update(from: source.baseAddress! + position, count: count)
                    position += count
                } else {
                    // A `duration` longer than the file (without loop) is padded with silence.
                    count = wanted
                    (buffer.baseAddress! + filled).update(repeating: 0, count: count)
                }
                filled += count
                remaining -= count
            }
        }
        buffer.silence(from: filled)
        return filled
    }

    public func close() { remaining = 0 }
}
