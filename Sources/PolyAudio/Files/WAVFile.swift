// WAV audio in memory: 16-bit PCM or 32-bit float, mono or stereo, any rate; read, written, converted.
import FoundationEssentials
import PolyCore

/// The contents of a WAV file: format and interleaved samples.
public struct WAVFile: Sendable, Equatable {
    /// The samples, in the file's own encoding (so write → read is bit-exact).
    public enum Samples: Sendable, Equatable {
        case int16([Int16])
        case float32([Float])
    }

    /// The highest rate read (and converted); files above it are `unsupportedFormat`.
    public static let maxSampleRate = 384_000

    public var sampleRate: Int
    public var layout: ChannelLayout
    public var samples: Samples

    public init(sampleRate: Int, layout: ChannelLayout, samples: Samples) {
        self.sampleRate = sampleRate
        self.layout = layout
        self.samples = samples
    }

    /// A 16-bit file holding `frame`.
    public init(_ frame: PCMFrame<Int16>) {
        self.init(sampleRate: frame.sampleRate, layout: frame.layout, samples: .int16(frame.samples))
    }

    /// A 32-bit float file holding `frame`.
    public init(_ frame: PCMFrame<Float>) {
        self.init(sampleRate: frame.sampleRate, layout: frame.layout, samples: .float32(frame.samples))
    }

    /// Samples per channel.
    public var samplesPerChannel: Int {
        switch samples {
        case .int16(let values): values.count / layout.count
        case .float32(let values): values.count / layout.count
        }
    }

    /// The audio as Int16 PCM at the file's rate and layout (float is rounded and clipped).
    public var int16Frame: PCMFrame<Int16> {
        switch samples {
        case .int16(let values): PCMFrame(samples: values, sampleRate: sampleRate, layout: layout)
        case .float32(let values):
            PCMFrame(samples: values, sampleRate: sampleRate, layout: layout).converted(to: Int16.self)
        }
    }

    /// The audio as the pipeline carries it: 48 kHz mono Int16 (channels averaged, resampled).
    public func pipelineSamples() -> [Int16] {
        let mono = int16Frame.mono()
        guard sampleRate != 48000 else { return mono.samples }
        precondition((1...Self.maxSampleRate).contains(sampleRate), "sample rate \(sampleRate) Hz out of range")
        // Cannot fail: the rate is in range, mono, default quality.
        let resampler = try! Resampler(from: sampleRate, to: 48000)
        var output = resampler.process(mono.samples)
        output += resampler.flush()
        // Drop the filter's delay so the result lines up with the input and has its length.
        let delay = resampler.outputLatency
        let length = samplesPerChannel * 48000 / sampleRate
        return Array(output.dropFirst(delay).prefix(length))
    }

    /// Reads a WAV file, or a stream (a pipe such as /dev/stdin) to its end.
    public static func read(from url: URL) throws(WAVError) -> WAVFile {
        // POSIX reads, not Data(contentsOf:), which refuses pipes: `polyvoice call --input -` reads one.
        let bytes: [UInt8]
        do throws(FileBytes.Failure) { bytes = try FileBytes.read(url.path) } catch {
            throw WAVError(file: url.path, problem: .io(error.reason))
        }
        return try decode(bytes, name: url.path)
    }

    /// Reads a WAV file as 48 kHz mono Int16, the format of the pipeline.
    public static func readPipelineSamples(from url: URL) throws(WAVError) -> [Int16] {
        try read(from: url).pipelineSamples()
    }

    /// Writes the file (canonical 44-byte header for PCM; float adds the `fact` chunk).
    public func write(to url: URL) throws(WAVError) {
        do throws(FileBytes.Failure) { try FileBytes.write(encoded(), to: url.path) } catch {
            throw WAVError(file: url.path, problem: .io(error.reason))
        }
    }
}
