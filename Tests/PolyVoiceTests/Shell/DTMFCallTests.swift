// A real call to the in-process reference bridge: PolyCall.sendDTMF goes as RFC 4733 events (negotiated
// with the bridge) and the script agent records the digits on its timeline.
import Foundation
import PolyAudio
import PolyVoiceBridge
import PolyVoiceTesting
import Testing

@testable import PolyVoice

@Suite("DTMF on a real call", .serialized)
struct DTMFCallTests {
    @Test func theBridgeRecordsTheDigitsSent() async throws {
        let directory = try EndToEndCallTests.scratch("dtmf")
        defer { try? FileManager.default.removeItem(at: directory) }
        try WAVFile(sampleRate: 48_000, layout: .mono, samples: .int16([Int16](repeating: 0, count: 4800)))
            .write(to: directory.appendingPathComponent("1.wav"))
        let (bridge, port) = try EndToEndCallTests.bridge(agent: .script(directory: directory.path), record: directory)
        defer { bridge.stop() }
        let call = try PolyVoice.call(
            config: EndToEndCallTests.config(port: port), options: VoiceOptions(input: .null, output: .null))
        await #expect(throws: PolyError.self) { try await call.sendDTMF("1") }  // not connected yet
        try await call.start()
        #expect(await Wait.state(of: call) { $0 == .connected } == .connected)
        await #expect(
            throws: PolyError.invalidConfiguration(field: "digits", reason: "'x' is not a DTMF digit (0-9, *, #, A-D)")
        ) {
            try await call.sendDTMF("1x")
        }
        let method = try await call.sendDTMF("12#", duration: .milliseconds(120))
        #expect(method == .rfc4733)
        try await Task.sleep(for: .seconds(1.5))  // 3 × (120 + 100) ms, and the network
        await call.end()

        #expect(await Wait.until(timeout: .seconds(5)) { Self.timeline(in: directory) != nil })
        let data = try Data(contentsOf: try #require(Self.timeline(in: directory)))
        let timeline = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let digits = try #require(timeline["dtmf"] as? [[String: Any]])
        #expect(digits.map { $0["digit"] as? String } == ["1", "2", "#"])
        #expect(digits.allSatisfy { ($0["duration"] as? Double).map { abs($0 - 0.12) < 1e-9 } ?? false })
        let starts = digits.compactMap { $0["start"] as? Double }
        // 220 ms apart as sent; the loaded machine's scheduling may shift a packet's arrival a little.
        #expect(zip(starts, starts.dropFirst()).allSatisfy { abs($1 - $0 - 0.22) < 0.06 })
    }

    static func timeline(in directory: URL) -> URL? {
        (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil))?.first {
            $0.lastPathComponent.hasSuffix("-timeline.json")
        }
    }
}
