// A block of interleaved PCM with its format: what flows between the pipeline's stages.

/// Channel layout of interleaved PCM.
public enum ChannelLayout: Int, Sendable, Equatable, CaseIterable {
    case mono = 1
    case stereo = 2

    /// Samples per frame instant (1 or 2).
    public var count: Int { rawValue }
}

/// Interleaved PCM samples with their sample rate and channel layout.
///
/// Convenient for files, tests and set-up; hot paths use `PCMConversion` on preallocated buffers.
public struct PCMFrame<Sample: PCMSample>: Sendable, Equatable {
    /// Interleaved samples (L R L R … for stereo).
    public var samples: [Sample]
    /// Samples per second per channel.
    public var sampleRate: Int
    public var layout: ChannelLayout

    public init(samples: [Sample], sampleRate: Int, layout: ChannelLayout = .mono) {
        precondition(sampleRate > 0, "sample rate must be positive")
        precondition(samples.count % layout.count == 0, "stereo samples must come in pairs")
        self.samples = samples
        self.sampleRate = sampleRate
        self.layout = layout
    }

    /// A frame of silence lasting `samplesPerChannel` samples.
    public static func silence(samplesPerChannel: Int, sampleRate: Int, layout: ChannelLayout = .mono) -> Self {
        Self(
            samples: Array(repeating: .zero, count: samplesPerChannel * layout.count), sampleRate: sampleRate,
            layout: layout)
    }

    /// Samples per channel.
    public var samplesPerChannel: Int { samples.count / layout.count }

    /// Playing time of the frame.
    public var duration: Duration { .nanoseconds(Int64(samplesPerChannel) * 1_000_000_000 / Int64(sampleRate)) }

    /// The same audio in another sample type (Int16 output is rounded and clipped).
    public func converted<Other: PCMSample>(to type: Other.Type) -> PCMFrame<Other> {
        let converted = [Other](unsafeUninitializedCapacity: samples.count) { buffer, count in
            samples.withUnsafeBufferPointer { PCMConversion.convert($0, into: buffer) }
            count = samples.count
        }
        return PCMFrame<Other>(samples: converted, sampleRate: sampleRate, layout: layout)
    }

    /// Mono: stereo channels averaged; a mono frame is returned as is.
    public func mono() -> Self {
        guard layout == .stereo else { return self }
        let frames = samplesPerChannel
        let mixed = [Sample](unsafeUninitializedCapacity: frames) { buffer, count in
            samples.withUnsafeBufferPointer { PCMConversion.stereoToMono($0, into: buffer) }
            count = frames
        }
        return Self(samples: mixed, sampleRate: sampleRate, layout: .mono)
    }

    /// Stereo: mono copied into both channels; a stereo frame is returned as is.
    public func stereo() -> Self {
        guard layout == .mono else { return self }
        let doubled = [Sample](unsafeUninitializedCapacity: samples.count * 2) { buffer, count in
            samples.withUnsafeBufferPointer { PCMConversion.monoToStereo($0, into: buffer) }
            count = samples.count * 2
        }
        return Self(samples: doubled, sampleRate: sampleRate, layout: .stereo)
    }
}

/// 16-bit integer PCM: the format of Opus, WAV files and audio devices.
public typealias Int16PCMFrame = PCMFrame<Int16>
/// 32-bit float PCM in −1...1: the format for signal processing.
public typealias FloatPCMFrame = PCMFrame<Float>
