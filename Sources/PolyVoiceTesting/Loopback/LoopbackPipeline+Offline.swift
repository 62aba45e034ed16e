// A whole recording through the loopback in virtual time: as fast as the CPU allows, same result every run.
import PolyAudio
import PolyCore

/// What came out of an offline loopback run.
public struct LoopbackResult: Sendable {
    /// The played audio, 48 kHz mono, from the first capture on (so it lags the input by the loopback delay).
    public var output: [Int16]
    public var statistics: LoopbackStatistics
}

extension LoopbackPipeline {
    /// Runs `input` (48 kHz mono) through a new pipeline: frame k is captured and a frame played at k × 20 ms;
    /// after the input (padded to whole frames) it plays on until the pipeline is drained, for at most `maximumTail`.
    public static func process(
        _ input: [Int16], configuration: LoopbackConfiguration, maximumTail: Duration = .seconds(5)
    ) throws(OpusError) -> LoopbackResult {
        var pipeline = try LoopbackPipeline(configuration)
        let frameSamples = AudioFrameFormat.samplesPerFrame
        let frameDuration = Duration.milliseconds(20)
        let inputFrames = (input.count + frameSamples - 1) / frameSamples
        let tailFrames = Int(maximumTail.inMilliseconds / 20)
        var output: [Int16] = []
        output.reserveCapacity((inputFrames + tailFrames) * frameSamples)
        var captured = [Int16](repeating: 0, count: frameSamples)
        var played = [Int16](repeating: 0, count: frameSamples)
        var now = Instant.zero
        for frame in 0..<(inputFrames + tailFrames) {
            if frame < inputFrames {
                let start = frame * frameSamples
                let end = min(start + frameSamples, input.count)
                captured.withUnsafeMutableBufferPointer { buffer in
                    for index in 0..<frameSamples { buffer[index] = start + index < end ? input[start + index] : 0 }
                }
                try pipeline.capture(captured, at: now)
            } else if pipeline.isDrained {
                break
            }
            played.withUnsafeMutableBufferPointer { _ = pipeline.play(at: now, into: $0) }
            output += played
            now += frameDuration
        }
        return LoopbackResult(output: output, statistics: pipeline.statistics)
    }
}
