// Streaming sample-rate conversion with speexdsp: state carries across calls, so frames join seamlessly.
import CSpeexDSP

/// Why a `Resampler` could not be made or run.
public struct ResamplerError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { "resampler: \(message)" }
}

/// Converts a stream of interleaved PCM from one rate to another (e.g. 44.1 kHz ↔ 48 kHz).
///
/// Stateful: feed consecutive blocks of one stream; call `flush` at its end for the filter's tail.
/// Thread safety: `@unchecked Sendable` for hand-over between threads, but use from one thread at a time.
public final class Resampler: @unchecked Sendable {
    /// The rates the pipeline meets; any positive rate up to 384 kHz is accepted.
    public static let commonRates = [8000, 16000, 22050, 24000, 32000, 44100, 48000]

    public let inputRate: Int
    public let outputRate: Int
    public let channels: Int
    private let state: OpaquePointer
    /// Samples per channel taken in and given out since creation or `reset()` (to size the flush).
    private var consumedTotal = 0
    private var producedTotal = 0

    /// `quality` 0...10 (speexdsp's scale; 5 is its desktop default, 3 its VoIP default).
    public init(from inputRate: Int, to outputRate: Int, channels: Int = 1, quality: Int = 5) throws(ResamplerError) {
        guard (1...384_000).contains(inputRate), (1...384_000).contains(outputRate) else {
            throw ResamplerError(message: "rates must be 1...384000 Hz, not \(inputRate) → \(outputRate)")
        }
        guard channels == 1 || channels == 2 else {
            throw ResamplerError(message: "channels must be 1 or 2, not \(channels)")
        }
        guard (0...10).contains(quality) else {
            throw ResamplerError(message: "quality must be 0...10, not \(quality)")
        }
        var error: Int32 = 0
        guard
            let state = speex_resampler_init(
                UInt32(channels), UInt32(inputRate), UInt32(outputRate), Int32(quality), &error)
        else { throw ResamplerError(message: String(cString: speex_resampler_strerror(error))) }
        self.state = state
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
    }

    deinit { speex_resampler_destroy(state) }

    /// Samples per channel of input the filter holds back (emitted by `flush`).
    public var inputLatency: Int { Int(speex_resampler_get_input_latency(state)) }

    /// The filter's delay in output samples per channel: output sample `n + outputLatency`
    /// corresponds to input time `n`. After `flush`, a stream of `k` input samples has given
    /// `ceil(k × outputRate / inputRate) + outputLatency` output samples.
    public var outputLatency: Int { Int(speex_resampler_get_output_latency(state)) }

    /// Enough output room (per channel) for `inputSamples` samples per channel of input.
    public func outputCapacity(forInput inputSamples: Int) -> Int {
        (inputSamples * outputRate + inputRate - 1) / inputRate + 8
    }

    /// Resamples interleaved Int16; returns samples per channel consumed from `input` and produced.
    /// Allocation-free; consumes all input when `output` has `outputCapacity(forInput:)` room.
    public func process(_ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Int16>)
        -> (consumed: Int, produced: Int)
    {
        var inLength = UInt32(input.count / channels)
        var outLength = UInt32(output.count / channels)
        guard let source = input.baseAddress, let destination = output.baseAddress, inLength > 0 else { return (0, 0) }
        _ = speex_resampler_process_interleaved_int(state, source, &inLength, destination, &outLength)
        consumedTotal += Int(inLength)
        producedTotal += Int(outLength)
        return (Int(inLength), Int(outLength))
    }

    /// Resamples interleaved Float; returns samples per channel consumed from `input` and produced.
    public func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>)
        -> (consumed: Int, produced: Int)
    {
        var inLength = UInt32(input.count / channels)
        var outLength = UInt32(output.count / channels)
        guard let source = input.baseAddress, let destination = output.baseAddress, inLength > 0 else { return (0, 0) }
        _ = speex_resampler_process_interleaved_float(state, source, &inLength, destination, &outLength)
        consumedTotal += Int(inLength)
        producedTotal += Int(outLength)
        return (Int(inLength), Int(outLength))
    }

    /// Resamples a whole block (convenience; allocates). Consecutive calls continue the stream.
    public func process(_ input: [Int16]) -> [Int16] { run(input) { self.process($0, into: $1) } }

    /// Resamples a whole block of Float (convenience; allocates).
    public func process(_ input: [Float]) -> [Float] { run(input) { self.process($0, into: $1) } }

    /// The tail still inside the filter, as Int16 (feeds silence through it). Call once at the end;
    /// the stream may then be continued only after `reset()`.
    public func flush(_ type: Int16.Type = Int16.self) -> [Int16] { drain { process($0) } }

    /// The tail still inside the filter, as Float.
    public func flush(_ type: Float.Type) -> [Float] { drain { process($0) } }

    /// Forgets the stream (as after creation).
    public func reset() {
        _ = speex_resampler_reset_mem(state)
        consumedTotal = 0
        producedTotal = 0
    }

    private func drain<S: PCMSample>(_ step: ([S]) -> [S]) -> [S] {
        let wanted = (consumedTotal * outputRate + inputRate - 1) / inputRate + outputLatency
        let missing = wanted - producedTotal
        guard missing > 0 else { return [] }
        // Silence through the filter pushes the held-back input out; a few extra samples cover rounding.
        let tail = step([S](repeating: .zero, count: (inputLatency + 4) * channels))
        return Array(tail.prefix(missing * channels))
    }

    private func run<S: PCMSample>(
        _ input: [S], _ step: (UnsafeBufferPointer<S>, UnsafeMutableBufferPointer<S>) -> (consumed: Int, produced: Int)
    ) -> [S] {
        let frames = input.count / channels
        var output = [S](repeating: .zero, count: outputCapacity(forInput: frames) * channels)
        var consumed = 0
        var produced = 0
        input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                while consumed < frames {
                    let (used, made) = step(
                        UnsafeBufferPointer(rebasing: source[(consumed * channels)...]),
                        UnsafeMutableBufferPointer(rebasing: destination[(produced * channels)...]))
                    consumed += used
                    produced += made
                    if used == 0 && made == 0 { break }
                }
            }
        }
        output.removeSubrange((produced * channels)...)
        return output
    }
}
