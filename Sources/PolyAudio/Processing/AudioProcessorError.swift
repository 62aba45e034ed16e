// Errors of the WebRTC audio processing library, with its error code.

/// Why an `AudioProcessor` could not be made or could not process a block.
public struct AudioProcessorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The library's (negative) error code, or 0 when creation was refused.
    public let code: Int
    public let message: String

    public var description: String { "audio processing: \(message)" + (code == 0 ? "" : " (error \(code))") }
}
