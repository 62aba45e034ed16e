// Echo cancellation, noise suppression and gain control between a call's speaker and microphone.
import PolyAudio
import PolySession
import Synchronization

/// Runs `AudioProcessor` on the call's audio clock thread: every played frame (after the jitter buffer
/// and the barge-in gate, exactly what the speaker gets) is the far-end reference, every microphone
/// frame is cleaned in place before it is encoded. Both calls come from the one clock thread
/// (`MediaTransport`'s 20 ms tick), never from a device callback; nothing is allocated per frame.
final class CallAudioProcessing: @unchecked Sendable {
    // @unchecked: `processor` is used from the audio clock thread only; the counters are atomic.
    private let processor: AudioProcessor
    private let processedFrames = Atomic<Int>(0)
    private let failedFrames = Atomic<Int>(0)

    init(options: AudioProcessingOptions) throws(AudioProcessorError) {
        processor = try AudioProcessor(options: options, channels: 1)
    }

    /// The speaker's frame, as the echo reference. Frames that are not whole 10 ms blocks are skipped.
    func played(_ frame: UnsafeBufferPointer<Int16>) {
        guard Self.isWholeBlocks(frame.count) else { return }
        do {
            try processor.processPlayout(frame)
        } catch {
            failedFrames.add(1, ordering: .relaxed)
        }
    }

    /// The microphone's frame, cleaned in place. The canceller estimates the speaker-to-microphone delay
    /// itself (delay-agnostic mode), so no device latency is passed in.
    func captured(_ frame: UnsafeMutableBufferPointer<Int16>) {
        guard Self.isWholeBlocks(frame.count) else { return }
        do {
            try processor.processCapture(frame)
            processedFrames.add(1, ordering: .relaxed)
        } catch {
            failedFrames.add(1, ordering: .relaxed)
        }
    }

    /// Microphone frames processed so far.
    var processed: Int { processedFrames.load(ordering: .relaxed) }
    /// Frames the library refused (left unprocessed).
    var failed: Int { failedFrames.load(ordering: .relaxed) }

    private static func isWholeBlocks(_ count: Int) -> Bool {
        count > 0 && count % AudioProcessor.blockSamples == 0
    }
}

extension AudioProcessing {
    /// The components to run for this input and output: `.auto` turns everything on only when both are
    /// devices (a microphone hearing a speaker); files, app buffers and null never echo.
    func components(input: AudioInput, output: AudioOutput) -> AudioProcessingOptions {
        switch self {
        case .on: .all
        case .off: .none
        case .auto: input.isDevice && output.isDevice ? .all : .none
        }
    }
}

extension AudioInput {
    /// The default or a named capture device.
    var isDevice: Bool {
        switch self {
        case .defaultDevice, .device: true
        case .file, .buffer, .frames, .null: false
        }
    }
}

extension AudioOutput {
    /// The default or a named playback device.
    var isDevice: Bool {
        switch self {
        case .defaultDevice, .device: true
        case .file, .buffer, .frames, .null: false
        }
    }
}
