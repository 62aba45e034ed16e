// Echo cancellation, noise suppression and gain control (Debian's webrtc-audio-processing) at 48 kHz.
import CAudioProcessing

/// Cleans the microphone signal using the playout signal as the echo reference.
///
/// Feed every block that goes to the speaker to `processPlayout` and every microphone block to
/// `processCapture`, both as 48 kHz interleaved Int16 in whole 10 ms blocks (a 20 ms pipeline frame
/// is two blocks). Processing is in place and allocation-free.
/// Thread safety: `@unchecked Sendable` for hand-over between threads, but use from one thread at a
/// time (the audio thread of the pipeline), playout and capture alike.
public final class AudioProcessor: @unchecked Sendable {
    /// The rate the processor runs at.
    public static let sampleRate = 48000
    /// Samples per channel of one 10 ms block, the library's unit of work.
    public static let blockSamples = 480
    /// Samples per channel of one 20 ms pipeline frame.
    public static let frameSamples = 960

    public let options: AudioProcessingOptions
    public let channels: Int
    private let handle: OpaquePointer

    /// A processor with `options` for mono or stereo (`channels` 1 or 2) at 48 kHz.
    public init(options: AudioProcessingOptions = .all, channels: Int = 1) throws(AudioProcessorError) {
        guard channels == 1 || channels == 2 else {
            throw AudioProcessorError(code: 0, message: "channels must be 1 or 2, not \(channels)")
        }
        guard
            let handle = pv_apm_create(
                Int32(Self.sampleRate), Int32(channels), options.echoCancellation ? 1 : 0,
                options.noiseSuppression ? 1 : 0, options.gainControl ? 1 : 0)
        else { throw AudioProcessorError(code: 0, message: "the library refused the configuration") }
        self.handle = handle
        self.options = options
        self.channels = channels
    }

    deinit { pv_apm_destroy(handle) }

    /// Analyses the far-end signal as it goes to the speaker (whole 10 ms blocks, interleaved).
    public func processPlayout(_ samples: UnsafeBufferPointer<Int16>) throws(AudioProcessorError) {
        guard let base = samples.baseAddress else { return }
        let block = blockLength(samples.count)
        for start in stride(from: 0, to: samples.count, by: block) {
            try check(pv_apm_process_render(handle, base + start, Self.blockSamples), "playout")
        }
    }

    /// Processes microphone samples in place (whole 10 ms blocks, interleaved). `echoDelay` is the
    /// time from a playout block entering `processPlayout` to its echo entering this call; the
    /// canceller also estimates it, so a rough figure will do.
    public func processCapture(_ samples: UnsafeMutableBufferPointer<Int16>, echoDelay: Duration = .zero)
        throws(AudioProcessorError)
    {
        guard let base = samples.baseAddress else { return }
        let block = blockLength(samples.count)
        let delay = Self.milliseconds(echoDelay)
        for start in stride(from: 0, to: samples.count, by: block) {
            try check(pv_apm_process_capture(handle, base + start, Self.blockSamples, delay), "capture")
        }
    }

    /// The echo canceller's figures; nil without echo cancellation or before it has any.
    public var echoStatistics: EchoStatistics? {
        var stats = pv_apm_stats()
        pv_apm_get_stats(handle, &stats)
        guard stats.valid != 0 else { return nil }
        return EchoStatistics(
            echoReturnLoss: Int(stats.echo_return_loss),
            echoReturnLossEnhancement: Int(stats.echo_return_loss_enhancement),
            residualEchoReturnLoss: Int(stats.residual_echo_return_loss),
            delayOffsetMedian: stats.delay_median_ms >= 0 ? .milliseconds(Int(stats.delay_median_ms)) : nil,
            hasEcho: stats.stream_has_echo != 0)
    }

    /// Whole milliseconds, kept within ±10 s (the library clamps to 0...500 ms anyway).
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(min(max(seconds, -10), 10) * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    /// Interleaved samples in one block; `count` must be whole blocks (a programming error otherwise).
    private func blockLength(_ count: Int) -> Int {
        let block = Self.blockSamples * channels
        precondition(count % block == 0, "audio processing needs whole 10 ms blocks of \(block) samples, not \(count)")
        return block
    }

    private func check(_ result: Int32, _ stream: StaticString) throws(AudioProcessorError) {
        guard result != 0 else { return }
        throw AudioProcessorError(code: Int(result), message: "\(stream) block rejected")
    }
}
