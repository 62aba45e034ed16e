// Frame sinks: streamed WAV files, app buffer streams, and the null sink.
import Foundation
import Testing

@testable import PolyAudio

@Suite struct SinkTests {
    @Test func wavFileSinkWritesA48kHzMonoFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pv-sink-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        let sink = try WAVFileSink(url: url)
        let samples = (0..<5000).map { Int16(truncatingIfNeeded: $0 * 13) }
        samples.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: 960) {
                sink.write(UnsafeBufferPointer(rebasing: all[start..<min(start + 960, all.count)]))
            }
        }
        #expect(sink.samplesWritten == 5000)
        sink.close()
        sink.close()  // idempotent
        #expect(sink.error == nil)
        let file = try WAVFile.read(from: url)
        #expect(file.sampleRate == 48000 && file.layout == .mono)
        #expect(file.samples == .int16(samples))
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int
        #expect(size == 44 + 10000)
    }

    @Test func wavFileSinkReportsAnUnwritablePath() {
        let path = "/nonexistent/pv-\(UUID().uuidString).wav"
        #expect {
            _ = try WAVFileSink(url: URL(fileURLWithPath: path))
        } throws: { error in
            (error as? WAVError)?.file == path
        }
    }

    /// At 48 kHz the app gets exactly what was written, in 20 ms chunks, then the end of the stream.
    @Test func bufferSinkPassesThroughAt48kHz() async throws {
        let (stream, continuation) = AsyncStream<[Int16]>.makeStream()
        let sink = try BufferSink(continuation: continuation, sampleRate: 48000)
        let samples = (0..<4800).map { Int16($0) }
        samples.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: 960) {
                sink.write(UnsafeBufferPointer(rebasing: all[start..<(start + 960)]))
            }
        }
        await sink.closeAndWait()
        var chunks: [[Int16]] = []
        for await chunk in stream { chunks.append(chunk) }
        #expect(chunks.allSatisfy { $0.count == 960 })
        #expect(chunks.flatMap { $0 } == samples)
        #expect(sink.droppedSamples == 0)
    }

    /// At 16 kHz the app gets a third of the samples, in 320-sample chunks.
    @Test func bufferSinkResamples() async throws {
        let (stream, continuation) = AsyncStream<[Int16]>.makeStream()
        let sink = try BufferSink(continuation: continuation, sampleRate: 16000)
        let tone = TestSignals.sine(frequency: 500, sampleRate: 48000, seconds: 0.5)
        tone.withUnsafeBufferPointer { sink.write($0) }
        await sink.closeAndWait()
        var chunks: [[Int16]] = []
        for await chunk in stream { chunks.append(chunk) }
        let total = chunks.reduce(0) { $0 + $1.count }
        #expect(chunks.dropLast().allSatisfy { $0.count == 320 })
        // 0.5 s at 16 kHz, plus the filter's tail flushed at close.
        try #require(total >= 8000 && total <= 8100, "\(total) samples")
        let expected = TestSignals.sine(frequency: 500, sampleRate: 16000, seconds: 0.5)
        let received = chunks.flatMap { $0 }
        let best =
            (0..<60).map { lag in
                TestSignals.correlation(received[(500 + lag)..<7000], expected[500..<(7000 - lag)])
            }.max() ?? 0
        #expect(best > 0.99, "correlation \(best)")
    }

    @Test func nullSinkTakesAnything() {
        let sink = NullSink()
        [Int16](repeating: 1, count: 960).withUnsafeBufferPointer { sink.write($0) }
        #expect(sink.name == "null")
    }
}
