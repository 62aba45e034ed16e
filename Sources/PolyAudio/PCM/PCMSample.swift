// The two sample types the pipeline uses and the conversions between them.

/// A PCM sample type: `Int16` (the pipeline's and Opus's format) or `Float` (−1...1, for DSP).
public protocol PCMSample: Sendable, Equatable, Numeric {
    /// The value as a Float in −1...1 (Int16 scaled by 1/32768).
    var floatValue: Float { get }
    /// The sample nearest to `value` (−1...1, clipped for Int16).
    init(floatValue value: Float)
}

extension Int16: PCMSample {
    @inlinable @inline(__always) public var floatValue: Float { Float(self) * (1 / 32768) }

    /// Rounds and clips; NaN (possible in float files) becomes silence rather than a trap.
    @inlinable @inline(__always) public init(floatValue value: Float) {
        let scaled = (value * 32768).rounded()
        if scaled >= 32767 {
            self = .max
        } else if scaled <= -32768 {
            self = .min
        } else {
            self = scaled.isNaN ? 0 : Int16(scaled)
        }
    }
}

extension Float: PCMSample {
    @inlinable @inline(__always) public var floatValue: Float { self }
    @inlinable @inline(__always) public init(floatValue value: Float) { self = value }
}

/// Allocation-free conversions between buffers, for the audio callback and per-frame paths.
public enum PCMConversion {
    /// Converts each sample (`output.count` must be ≥ `input.count`); Int16 output is clipped.
    @inline(__always)
    public static func convert<In: PCMSample, Out: PCMSample>(
        _ input: UnsafeBufferPointer<In>, into output: UnsafeMutableBufferPointer<Out>
    ) {
        precondition(output.count >= input.count, "output buffer too small")
        for index in input.indices { output[index] = Out(floatValue: input[index].floatValue) }
    }

    /// Averages interleaved stereo pairs into mono (`output.count` ≥ `input.count / 2`).
    @inline(__always)
    public static func stereoToMono<S: PCMSample>(
        _ input: UnsafeBufferPointer<S>, into output: UnsafeMutableBufferPointer<S>
    ) {
        let frames = input.count / 2
        precondition(output.count >= frames, "output buffer too small")
        for frame in 0..<frames {
            output[frame] = S(floatValue: (input[2 * frame].floatValue + input[2 * frame + 1].floatValue) * 0.5)
        }
    }

    /// Copies mono into both channels of interleaved stereo (`output.count` ≥ `2 * input.count`).
    @inline(__always)
    public static func monoToStereo<S: PCMSample>(
        _ input: UnsafeBufferPointer<S>, into output: UnsafeMutableBufferPointer<S>
    ) {
        precondition(output.count >= 2 * input.count, "output buffer too small")
        for index in input.indices {
            output[2 * index] = input[index]
            output[2 * index + 1] = input[index]
        }
    }
}
