// WAV through pipes (`polyvoice call --output -`, `--input -`): a sink that cannot seek writes the
// streaming "unknown length" sizes, and the reader takes such a header's data to the end of the stream.
import Foundation
import PolyAudio
import Testing

@Suite struct WAVStreamTests {
    static func field(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    @Test func aSinkOnAPipeWritesUnknownLengthAndTheSamples() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let sink = try WAVFileSink(url: URL(fileURLWithPath: "/dev/fd/\(ends[1])"))
        close(ends[1])  // the sink opened its own descriptor
        let samples: [Int16] = (0..<960).map { Int16($0 * 7 % 2000 - 1000) }
        samples.withUnsafeBufferPointer { sink.write($0) }
        sink.close()
        #expect(sink.error == nil, "no attempt to rewind a pipe")
        let bytes = [UInt8](FileHandle(fileDescriptor: ends[0]).readDataToEndOfFile())
        #expect(bytes.count == 44 + 960 * 2)
        #expect(Self.field(bytes, at: 4) == 0xFFFF_FFFF)
        #expect(Self.field(bytes, at: 40) == 0xFFFF_FFFF)
        let decoded = try WAVFile.decode(bytes, name: "pipe")
        #expect(decoded.pipelineSamples() == samples)
    }

    @Test func aFileSinkStillFillsInTheRealSizes() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("out.wav")
        let sink = try WAVFileSink(url: url)
        [Int16](repeating: 100, count: 480).withUnsafeBufferPointer { sink.write($0) }
        sink.close()
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(Self.field(bytes, at: 40) == 960)
        #expect(Self.field(bytes, at: 4) == 36 + 960)
    }

    @Test func readingFromAPipeTakesTheWholeStream() throws {
        let samples: [Int16] = (0..<4800).map { Int16(truncatingIfNeeded: $0 * 13) }
        let bytes = WAVFile(sampleRate: 48000, layout: .mono, samples: .int16(samples)).encoded()
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let writeEnd = ends[1]
        let writer = Thread {
            FileHandle(fileDescriptor: writeEnd, closeOnDealloc: true).write(Data(bytes))
        }
        writer.start()
        let file = try WAVFile.read(from: URL(fileURLWithPath: "/dev/fd/\(ends[0])"))
        close(ends[0])
        #expect(file.pipelineSamples() == samples)
    }
}
