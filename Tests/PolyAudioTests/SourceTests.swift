// Frame sources: WAV files (rate conversion, loop, duration, ending), silence, and app buffer streams.
import Foundation
import Testing

@testable import PolyAudio

@Suite struct SourceTests {
    static let frame = AudioFrameFormat.samplesPerFrame

    static func temporaryWAV(_ samples: [Int16], rate: Int) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pv-source-\(UUID().uuidString).wav")
        try WAVFile(PCMFrame(samples: samples, sampleRate: rate)).write(to: url)
        return url
    }

    /// Reads `frames` frames; returns all samples and the real-sample count of each frame.
    static func drain(_ source: some AudioFrameSource, frames: Int) -> (samples: [Int16], real: [Int]) {
        var samples = [Int16](repeating: 7, count: frames * frame)
        var real: [Int] = []
        samples.withUnsafeMutableBufferPointer { buffer in
            for index in 0..<frames {
                real.append(
                    source.read(
                        into: UnsafeMutableBufferPointer(
                            rebasing: buffer[(index * frame)...][..<(index * frame + frame)])))
            }
        }
        return (samples, real)
    }

    @Test func wavFileIsConvertedTo48kHzAndEnds() throws {
        let url = try Self.temporaryWAV(TestSignals.sine(frequency: 300, sampleRate: 16000, seconds: 0.1), rate: 16000)
        defer { try? FileManager.default.removeItem(at: url) }
        let source = try WAVFileSource(url: url)
        #expect(source.name == "file \(url.lastPathComponent)")
        let (samples, real) = Self.drain(source, frames: 8)
        #expect(real == [960, 960, 960, 960, 960, 0, 0, 0])  // 0.1 s at 48 kHz = 4800 samples
        #expect(source.endOfStream)
        #expect(samples[4800...].allSatisfy { $0 == 0 })
        #expect(samples[..<4800].contains { abs(Int($0)) > 10000 })
    }

    @Test func silenceEndingKeepsTheStreamOpen() throws {
        let url = try Self.temporaryWAV([Int16](repeating: 1000, count: 1000), rate: 48000)
        defer { try? FileManager.default.removeItem(at: url) }
        let source = try WAVFileSource(url: url, ending: .silence)
        let (samples, real) = Self.drain(source, frames: 3)
        #expect(real == [960, 40, 0])
        #expect(!source.endOfStream)
        #expect(samples[1000...].allSatisfy { $0 == 0 })
    }

    @Test func loopRepeatsUntilTheDuration() throws {
        let ramp = (0..<700).map { Int16($0) }
        let url = try Self.temporaryWAV(ramp, rate: 48000)
        defer { try? FileManager.default.removeItem(at: url) }
        let source = try WAVFileSource(url: url, loop: true, duration: .milliseconds(50))
        let (samples, real) = Self.drain(source, frames: 4)
        #expect(real == [960, 960, 480, 0])  // 50 ms = 2400 samples
        #expect(source.endOfStream)
        #expect(Array(samples[..<2400]) == (0..<2400).map { Int16($0 % 700) })
    }

    @Test func durationLongerThanTheFilePadsWithSilence() throws {
        let url = try Self.temporaryWAV([Int16](repeating: 500, count: 480), rate: 48000)
        defer { try? FileManager.default.removeItem(at: url) }
        let source = try WAVFileSource(url: url, duration: .milliseconds(30))
        let (samples, real) = Self.drain(source, frames: 3)
        #expect(real == [960, 480, 0])
        #expect(samples[..<480].allSatisfy { $0 == 500 } && samples[480..<1440].allSatisfy { $0 == 0 })
    }

    @Test func missingFileNamesThePath() {
        let path = "/nonexistent/pv-\(UUID().uuidString).wav"
        #expect {
            _ = try WAVFileSource(url: URL(fileURLWithPath: path))
        } throws: { error in
            guard let error = error as? WAVError, case .io = error.problem else { return false }
            return error.file == path
        }
    }

    @Test func nullSourceIsEndlessSilence() {
        let source = NullSource()
        let (samples, real) = Self.drain(source, frames: 2)
        #expect(real == [0, 0] && samples.allSatisfy { $0 == 0 } && !source.endOfStream)
    }

    /// An app stream at 48 kHz larger than the ring: everything arrives in order (the task waits for room).
    @Test func bufferSourceDeliversInOrderWithBackpressure() async throws {
        let (stream, continuation) = AsyncStream<[Int16]>.makeStream()
        let total = 24000
        for start in stride(from: 0, to: total, by: 1000) {
            continuation.yield((start..<(start + 1000)).map { Int16(truncatingIfNeeded: $0) })
        }
        continuation.finish()
        let source = try BufferSource(stream: stream, sampleRate: 48000, bufferDuration: .milliseconds(40))
        var received: [Int16] = []
        var buffer = [Int16](repeating: 0, count: Self.frame)
        let deadline = ContinuousClock.now + .seconds(60)
        while !source.endOfStream && ContinuousClock.now < deadline {
            let got = buffer.withUnsafeMutableBufferPointer { source.read(into: $0) }
            received += buffer.prefix(got)
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(source.endOfStream)
        #expect(received == (0..<total).map { Int16(truncatingIfNeeded: $0) })
    }

    /// A 16 kHz app stream comes out at 48 kHz: three times the samples, the tone intact.
    @Test func bufferSourceResamples() async throws {
        let (stream, continuation) = AsyncStream<[Int16]>.makeStream()
        continuation.yield(TestSignals.sine(frequency: 400, sampleRate: 16000, seconds: 0.2))
        continuation.finish()
        let source = try BufferSource(stream: stream, sampleRate: 16000)
        var received: [Int16] = []
        var buffer = [Int16](repeating: 0, count: Self.frame)
        let deadline = ContinuousClock.now + .seconds(60)
        while !source.endOfStream && ContinuousClock.now < deadline {
            let got = buffer.withUnsafeMutableBufferPointer { source.read(into: $0) }
            received += buffer.prefix(got)
            try await Task.sleep(for: .milliseconds(2))
        }
        // 0.2 s at 48 kHz, plus the filter's tail flushed at the end of the stream.
        try #require(received.count >= 9600 && received.count <= 9800, "\(received.count) samples")
        let expected = TestSignals.sine(frequency: 400, sampleRate: 48000, seconds: 0.2)
        // Aligned past the filter delay, the resampled tone matches a tone made at 48 kHz.
        let best =
            (0..<100).map { lag in
                TestSignals.correlation(received[(1000 + lag)..<8000], expected[1000..<(8000 - lag)])
            }.max() ?? 0
        #expect(best > 0.99, "correlation \(best)")
    }
}
