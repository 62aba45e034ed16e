// What can be wrong with a WAV file, always named together with the file.

/// A WAV file that could not be read or written: the file's name and the problem.
public struct WAVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Problem: Sendable, Equatable {
        /// The file could not be opened, read or written (the system's reason).
        case io(String)
        /// The first 12 bytes are not `RIFF....WAVE`.
        case notRIFFWAVE
        /// A required chunk (`fmt ` or `data`) is absent.
        case missingChunk(String)
        /// A well-formed file in a format this reader does not handle (e.g. "24-bit PCM", "A-law").
        case unsupportedFormat(String)
        /// The `fmt ` chunk is too short or contradicts itself.
        case malformedFormat(String)
        /// The `data` chunk announces more bytes than the file holds, or ends mid-sample.
        case truncatedData(declared: Int, available: Int)
        /// A chunk's length runs past the end of the file.
        case chunkPastEnd(chunk: String, declared: Int, available: Int)
    }

    /// The file's path (or the name given to `WAVFile.decode`).
    public let file: String
    public let problem: Problem

    public init(file: String, problem: Problem) {
        self.file = file
        self.problem = problem
    }

    public var description: String {
        let text: String
        switch problem {
        case .io(let reason): text = reason
        case .notRIFFWAVE: text = "not a WAV file (no RIFF/WAVE header)"
        case .missingChunk(let chunk): text = "missing '\(chunk)' chunk"
        case .unsupportedFormat(let format):
            text = "unsupported format: \(format) (16-bit PCM or 32-bit float, mono or stereo)"
        case .malformedFormat(let reason): text = "malformed 'fmt ' chunk: \(reason)"
        case .truncatedData(let declared, let available):
            text = "truncated audio data: \(declared) bytes declared, \(available) present"
        case .chunkPastEnd(let chunk, let declared, let available):
            text = "chunk '\(chunk)' declares \(declared) bytes but only \(available) remain"
        }
        return "\(file): \(text)"
    }
}
