// The Samples/ programs (public API only) run once each against `polyvoice bridge` with the echo agent,
// plus one real `polyvoice call` with file audio.
import Foundation
import Testing

/// A short generated tone file (no espeak-ng needed): 2 s of 440 Hz at 48 kHz.
func toneFile() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("polyvoice-tone-\(UUID().uuidString).wav")
    let samples = (0..<96_000).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
    var data = Data()
    func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
    data.append(contentsOf: Array("RIFF".utf8))
    append(UInt32(36 + samples.count * 2))
    data.append(contentsOf: Array("WAVEfmt ".utf8))
    append(UInt32(16))
    append(UInt16(1))
    append(UInt16(1))
    append(UInt32(48_000))
    append(UInt32(96_000))
    append(UInt16(2))
    append(UInt16(16))
    data.append(contentsOf: Array("data".utf8))
    append(UInt32(samples.count * 2))
    for sample in samples { append(sample) }
    try data.write(to: url)
    return url
}

@Suite("Samples and a real call against polyvoice bridge", .serialized)
struct CallSamplesTests {
    static func environment(_ bridge: BridgeProcess) -> [String: String] {
        [
            "POLYVOICE_BRIDGE_URL": "http://127.0.0.1:\(bridge.port)/", "POLYVOICE_WEBRTC_TOKEN": BridgeProcess.token,
            "POLYVOICE_SAMPLE_AUDIO": "null", "SIMPLECALL_SECONDS": "1",
        ]
    }

    @Test func simpleCallConnectsAndEnds() async throws {
        let bridge = try BridgeProcess()
        defer { bridge.stop() }
        let result = try await runBuiltBinary("SimpleCall", [], environment: Self.environment(bridge))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("call: connected"))
        #expect(result.stdout.contains("call: ended"))
    }

    @Test func fileLoopbackRecordsTheEchoAndPrintsStats() async throws {
        let bridge = try BridgeProcess()
        defer { bridge.stop() }
        let input = try toneFile()
        let output = input.deletingPathExtension().appendingPathExtension("out.wav")
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        let result = try await runBuiltBinary(
            "FileLoopback", [input.path, output.path], environment: Self.environment(bridge))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("final state: ended"))
        #expect(result.stdout.contains("packets sent:"))
        let size = try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int ?? 0
        #expect(size > 48_000 * 2)  // more than a second of the echo
    }

    @Test func bufferBotHearsItsTonesBack() async throws {
        let bridge = try BridgeProcess()
        defer { bridge.stop() }
        let result = try await runBuiltBinary("BufferBot", [], environment: Self.environment(bridge))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("heard"))
    }

    @Test func realCallWithFileAudioAndJSON() async throws {
        let bridge = try BridgeProcess()
        defer { bridge.stop() }
        let input = try toneFile()
        let output = input.deletingPathExtension().appendingPathExtension("heard.wav")
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        let result = try await runPolyvoice(
            [
                "call", "--bridge", "http://127.0.0.1:\(bridge.port)/", "--input", input.path, "--output", output.path,
                "--duration", "3", "--json",
            ], environment: ["POLYVOICE_WEBRTC_TOKEN": BridgeProcess.token])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains(#""state":"connected""#) && $0.contains(#""type":"state""#) })
        #expect(lines.contains { $0.contains(#""type":"stats""#) })
        let summary = try #require(lines.last)
        #expect(summary.contains(#""type":"summary""#))
        #expect(summary.contains(#""result":"ended""#))
        #expect(summary.contains(#""exitCode":0"#))
        #expect(!result.stdout.contains(BridgeProcess.token))
        let size = try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int ?? 0
        #expect(size > 48_000 * 2)
    }
}
