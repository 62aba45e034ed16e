// WAV files: bit-exact round trips and the documented error for each malformed file.
import Foundation
import PolyAudio
import Testing

/// A fresh temporary directory for one test.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("polyaudio-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite struct WAVFileTests {
    static let formats: [(ChannelLayout, Bool, Int)] = [
        (.mono, false, 48000), (.stereo, false, 44100), (.mono, true, 8000), (.stereo, true, 22050),
    ]

    @Test(arguments: formats)
    func writeThenReadIsBitExact(layout: ChannelLayout, float: Bool, rate: Int) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var random = SystemRandomNumberGenerator()
        let count = 1001 * layout.count
        let file =
            float
            ? WAVFile(
                sampleRate: rate, layout: layout,
                samples: .float32((0..<count).map { _ in Float.random(in: -1.5...1.5, using: &random) }))
            : WAVFile(
                sampleRate: rate, layout: layout,
                samples: .int16((0..<count).map { _ in Int16.random(in: .min ... .max, using: &random) }))
        let url = directory.appendingPathComponent("a.wav")
        try file.write(to: url)
        let back = try WAVFile.read(from: url)
        #expect(back == file)
        #expect(back.samplesPerChannel == 1001)
        // Re-encoding what was read reproduces the bytes on disk.
        #expect(back.encoded() == [UInt8](try Data(contentsOf: url)))
    }

    @Test func soxReadsWhatWeWrite() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("tone.wav")
        try WAVFile(
            PCMFrame(samples: TestSignals.sine(frequency: 440, sampleRate: 16000, seconds: 0.25), sampleRate: 16000)
        )
        .write(to: url)
        let info = try run("/usr/bin/soxi", [url.path])
        #expect(info.contains("16000"))
        #expect(info.contains("4000 samples"))
    }

    @Test func pipelineConversionGives48kMono() throws {
        let tone = TestSignals.sine(frequency: 1000, sampleRate: 16000, seconds: 0.5)
        let stereo = WAVFile(PCMFrame(samples: tone.flatMap { [$0, $0] }, sampleRate: 16000, layout: .stereo))
        let pipeline = stereo.pipelineSamples()
        #expect(pipeline.count == 24000)
        let expected = TestSignals.sine(frequency: 1000, sampleRate: 48000, seconds: 0.5)
        // Aligned (the filter delay removed): the resampled tone matches the 48 kHz tone closely.
        #expect(TestSignals.snr(expected[1000..<23000], pipeline[1000..<23000]) > 30)
    }

    // MARK: Malformed files

    /// A valid 16-bit mono header + `data` of `payload` bytes (header fields overridable).
    static func wav(
        format: UInt16 = 1, channels: UInt16 = 1, bits: UInt16 = 16, dataSize: UInt32? = nil, payload: Int = 8
    ) -> [UInt8] {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
        let align = channels * bits / 8
        return Array("RIFF".utf8) + le32(36 + UInt32(payload)) + Array("WAVE".utf8) + Array("fmt ".utf8) + le32(16)
            + le16(format) + le16(channels) + le32(8000) + le32(8000 * UInt32(align)) + le16(align) + le16(bits)
            + Array("data".utf8) + le32(dataSize ?? UInt32(payload)) + [UInt8](repeating: 0, count: payload)
    }

    static let malformed: [(String, [UInt8], WAVError.Problem)] = [
        ("empty", [], .notRIFFWAVE),
        ("text", Array("hello, this is not audio at all".utf8), .notRIFFWAVE),
        ("RIFF but AVI", Array("RIFF\u{0}\u{0}\u{0}\u{0}AVI ".utf8), .notRIFFWAVE),
        ("header only", Array("RIFF\u{4}\u{0}\u{0}\u{0}WAVE".utf8), .missingChunk("fmt ")),
        ("no data", Array(wav().prefix(36)), .missingChunk("data")),
        ("data before fmt", Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEdata\u{0}\u{0}\u{0}\u{0}".utf8), .missingChunk("fmt ")),
        ("24-bit", wav(bits: 24, payload: 6), .unsupportedFormat("24-bit PCM")),
        ("8-bit", wav(bits: 8), .unsupportedFormat("8-bit PCM")),
        ("A-law", wav(format: 6, bits: 8), .unsupportedFormat("A-law")),
        ("μ-law", wav(format: 7, bits: 8), .unsupportedFormat("μ-law")),
        ("64-bit float", wav(format: 3, bits: 64), .unsupportedFormat("64-bit float")),
        ("3 channels", wav(channels: 3, payload: 12), .unsupportedFormat("3 channels")),
        ("truncated data", Array(wav(payload: 100).dropLast(40)), .truncatedData(declared: 100, available: 60)),
        ("huge data length", wav(dataSize: 0xFFFF_FFF0), .truncatedData(declared: 0xFFFF_FFF0, available: 8)),
        ("odd data length", wav(dataSize: 7), .truncatedData(declared: 7, available: 6)),
        (
            "chunk past end", Array(wav().prefix(12)) + Array("LIST".utf8) + [0xFF, 0, 0, 0, 1, 2],
            .chunkPastEnd(chunk: "LIST", declared: 255, available: 2)
        ),
        (
            "short fmt", Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt \u{4}\u{0}\u{0}\u{0}\u{1}\u{0}\u{1}\u{0}".utf8),
            .malformedFormat("4 bytes, at least 16 needed")
        ),
    ]

    @Test(arguments: malformed)
    func malformedFilesGiveTheirError(name: String, bytes: [UInt8], problem: WAVError.Problem) throws {
        let error = #expect(throws: WAVError.self, "\(name)") { try WAVFile.decode(bytes, name: "bad.wav") }
        #expect(error?.problem == problem, "\(name)")
        #expect(error?.description.hasPrefix("bad.wav: ") == true)
    }

    @Test func errorsNameTheFileOnDisk() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("cut.wav")
        try Data(Self.wav(payload: 100).dropLast(10)).write(to: url)
        let error = #expect(throws: WAVError.self) { try WAVFile.read(from: url) }
        #expect(error?.description == "\(url.path): truncated audio data: 100 bytes declared, 90 present")
        let missing = #expect(throws: WAVError.self) {
            try WAVFile.read(from: directory.appendingPathComponent("none.wav"))
        }
        #expect(missing?.file.hasSuffix("none.wav") == true)
        if case .io = missing?.problem {
        } else {
            Issue.record("expected an I/O problem, got \(String(describing: missing))")
        }
    }

    @Test func validFilesFromOtherWritersParse() throws {
        // An extra chunk before `data`, an odd-length chunk with its pad byte, and a short payload.
        let bytes =
            Array(Self.wav(payload: 4).prefix(36)) + Array("LIST".utf8) + [3, 0, 0, 0, 9, 9, 9, 0]
            + Array("data".utf8) + [4, 0, 0, 0, 0x01, 0x00, 0xFF, 0xFF]
        let file = try WAVFile.decode(bytes, name: "x.wav")
        #expect(file.samples == .int16([1, -1]))
        #expect(file.sampleRate == 8000)
    }
}

/// Runs a tool and returns its standard output.
func run(_ tool: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
