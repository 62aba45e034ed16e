// Interoperability with a real WebRTC stack: aiortc (PyPI, pinned in scripts/requirements.txt) in a child
// process, every candidate on 127.0.0.1. Our MediaTransport as offerer (client) and as answerer (bridge, with
// its pull renegotiation); ICE connects, DTLS completes, Opus tones cross SRTP both ways and are measured on
// both sides; a wrong certificate fingerprint is refused.
import Foundation
import InteropSupport
import PolyCore
import PolyNet
import PolySession
import Testing

@testable import PolyVoice

@Suite("Interop with aiortc", .serialized, .timeLimit(.minutes(1)))
struct AiortcInteropTests {
    /// What we send, and what aiortc sends (not harmonically related, so neither can pass for the other).
    static let ourTone = 660.0
    static let theirTone = 1_000.0

    @Test("our offer, aiortc answers: ICE, DTLS, Opus over SRTP both ways")
    func ourOfferAiortcAnswers() async throws {
        let peer = try AiortcPeer()
        let call = try InteropCall(role: .client, tone: Self.ourTone)
        do {
            let offer = try await call.transport.createOffer()
            #expect(InteropCall.candidateAddresses(in: offer).allSatisfy { $0 == "127.0.0.1" })
            let answer = try await peer.answer(offer, tone: Self.theirTone)
            #expect(!InteropCall.candidateAddresses(in: answer).isEmpty)
            #expect(InteropCall.candidateAddresses(in: answer).allSatisfy { $0 == "127.0.0.1" })
            #expect(answer.contains("a=setup:active"))
            try await call.transport.applyAnswer(answer)
            try await expectTwoWayAudio(call, peer)
        } catch {
            await finish(call, peer)
            throw error
        }
        await finish(call, peer)
    }

    @Test("aiortc offers, our bridge answers and pulls: ICE-lite, DTLS, Opus over SRTP both ways")
    func aiortcOffersBridgeAnswers() async throws {
        let peer = try AiortcPeer()
        let call = try InteropCall(role: .bridge, tone: Self.ourTone)
        do {
            let offer = try await peer.offer(tone: Self.theirTone)
            #expect(!InteropCall.candidateAddresses(in: offer).isEmpty)
            #expect(InteropCall.candidateAddresses(in: offer).allSatisfy { $0 == "127.0.0.1" })
            let answer = try await call.transport.applyOffer(offer)
            #expect(answer.contains("a=ice-lite"))
            try await peer.applyAnswer(answer)
            let connected = await call.events.wait(for: .connected, timeout: .seconds(5))
            try #require(connected != nil, "never connected: \(call.events.all)")
            // The bridge sends on its own line, added by a pull offer (PROTOCOL.md §3) that aiortc answers.
            let pullOffer = try await call.transport.createPullOffer()
            let pullAnswer = try await peer.applyOffer(pullOffer)
            try await call.transport.applyPullAnswer(pullAnswer)
            try await expectTwoWayAudio(call, peer)
        } catch {
            await finish(call, peer)
            throw error
        }
        await finish(call, peer)
    }

    @Test("aiortc as an echo callee returns our tone; what it received is saved as a WAV")
    func aiortcEchoesOurTone() async throws {
        let peer = try AiortcPeer()
        let call = try InteropCall(role: .client, tone: Self.ourTone)
        do {
            try await call.transport.applyAnswer(try await peer.answerEchoing(try await call.transport.createOffer()))
            let connected = await call.events.wait(for: .connected, timeout: .seconds(5))
            try #require(connected != nil, "never connected: \(call.events.all)")
            let deadline = Instant.now() + .seconds(20)
            var segment: ArraySlice<Int16>?
            while segment == nil, Instant.now() < deadline {
                try await Task.sleep(for: .milliseconds(500))
                segment = ToneAnalysis.segment(of: call.recording.samples, skip: 24_000, length: 48_000)
            }
            let echoed = try #require(segment, "no 1.5 s of echo came back")
            #expect(abs(ToneAnalysis.dominantFrequency(echoed) - Self.ourTone) < 3)
            #expect(ToneAnalysis.rms(echoed) > 2_000)
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("aiortc-echo-\(getpid()).wav").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            let saved = try await peer.saveReceived(to: path)
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(saved > 48_000)
            #expect(size == 44 + 2 * saved)
        } catch {
            await finish(call, peer)
            throw error
        }
        await finish(call, peer)
    }

    @Test("a wrong fingerprint in aiortc's offer is refused (we are the DTLS client)")
    func fingerprintMismatchAsAnswerer() async throws {
        let peer = try AiortcPeer()
        let call = try InteropCall(role: .bridge, tone: Self.ourTone)
        do {
            let offer = InteropCall.tamperingFingerprints(in: try await peer.offer(tone: Self.theirTone))
            try await peer.applyAnswer(try await call.transport.applyOffer(offer))
            try await expectRefused(call, peer)
        } catch {
            await finish(call, peer)
            throw error
        }
        await finish(call, peer)
    }

    @Test("a wrong fingerprint in aiortc's answer is refused (we are the DTLS server)")
    func fingerprintMismatchAsOfferer() async throws {
        let peer = try AiortcPeer()
        let call = try InteropCall(role: .client, tone: Self.ourTone)
        do {
            let answer = try await peer.answer(try await call.transport.createOffer(), tone: Self.theirTone)
            try await call.transport.applyAnswer(InteropCall.tamperingFingerprints(in: answer))
            try await expectRefused(call, peer)
        } catch {
            await finish(call, peer)
            throw error
        }
        await finish(call, peer)
    }

    // MARK: Checks

    /// Both sides connect, then tones flow (≥ 1.5 s each way): each side hears the other's frequency (±3 Hz) at a
    /// real level, over an authenticated SRTP stream.
    private func expectTwoWayAudio(_ call: InteropCall, _ peer: AiortcPeer) async throws {
        let connected = await call.events.wait(for: .connected, timeout: .seconds(5))
        try #require(connected != nil, "never connected: \(call.events.all)")
        #expect(try await peer.wait(for: "connected", seconds: 5) == "connected")
        #expect(await call.events.wait(for: .mediaFlowing, timeout: .seconds(3)) != nil)
        // At least 1.5 s of tone each way (more on a loaded machine, where the audio clocks lag), then measure.
        var report = try await peer.report(skip: 0.5)
        let deadline = Instant.now() + .seconds(20)
        while Instant.now() < deadline {
            try await Task.sleep(for: .milliseconds(500))
            report = try await peer.report(skip: 0.5)
            let heardEnough = ToneAnalysis.segment(of: call.recording.samples, skip: 24_000, length: 48_000) != nil
            if heardEnough, (report.packetsReceived ?? 0) > 100 { break }
        }
        print(
            "aiortc received \(report.packetsReceived ?? 0) packets, tone \(report.frequency ?? 0) Hz, "
                + "RMS \(report.rms ?? 0), SRTP \(report.srtpProfile ?? "?"), ICE \(report.iceState ?? "?")")
        #expect(report.dtlsState == "connected")
        #expect((report.packetsReceived ?? 0) > 100)
        #expect(abs((report.frequency ?? 0) - Self.ourTone) < 3)
        #expect((report.rms ?? 0) > 2_000)

        let recorded = call.recording.samples
        let segment = ToneAnalysis.segment(of: recorded, skip: 24_000, length: 48_000)
        let heard = try #require(segment, "we received less than 1.5 s of audio (\(recorded.count) samples played)")
        let frequency = ToneAnalysis.dominantFrequency(heard)
        let stats = await call.transport.stats()
        print(
            "we received \(stats.inboundRtp.packetsReceived) packets, tone \(frequency) Hz, "
                + "RMS \(ToneAnalysis.rms(heard))")
        #expect(abs(frequency - Self.theirTone) < 3)
        #expect(ToneAnalysis.rms(heard) > 2_000)
        #expect(stats.inboundRtp.packetsReceived > 60)
        #expect(stats.outboundRtp.packetsSent > 60)
        #expect(stats.srtpAuthenticationFailures == 0)
    }

    /// We report the mismatch as a failure, never connect, and no audio reaches aiortc.
    private func expectRefused(_ call: InteropCall, _ peer: AiortcPeer) async throws {
        let failure = await call.events.wait(timeout: .seconds(5)) { event in
            if case .failed = event { return true }
            return false
        }
        #expect(failure?.event == .failed("DTLS fingerprint mismatch"), "events: \(call.events.all)")
        try await Task.sleep(for: .milliseconds(500))
        #expect(call.events.first { $0 == .connected } == nil)
        let report = try await peer.report(skip: 0)
        #expect(report.connectionState != "connected")
        #expect((report.packetsReceived ?? 0) == 0)
    }

    private func finish(_ call: InteropCall, _ peer: AiortcPeer) async {
        await call.transport.close()
        call.loop.shutdown()
        await peer.quit()
    }
}

/// One side of an interop call: our MediaTransport on its own event loop, bound to 127.0.0.1, sending a
/// tone and recording what it plays.
struct InteropCall {
    let loop: EventLoop
    let transport: MediaTransport
    let recording = RecordingSink()
    let events = MediaEventRecorder()

    init(role: MediaRole, tone: Double) throws {
        loop = try EventLoop(name: "interop-\(role)")
        let samples = (0..<(10 * 48_000)).map { index in
            Int16(9_830 * sin(2 * Double.pi * tone * Double(index) / 48_000))
        }
        let events = events
        transport = try MediaTransport(
            configuration: MediaEndpointConfiguration(role: role, certificate: try DTLSCertificate.shared()),
            localIPs: [.loopbackV4], loop: loop, source: SampleBufferSource(samples: samples), sink: recording,
            onEvent: { events.record($0) })
    }

    /// The connection addresses of every `a=candidate` line.
    static func candidateAddresses(in sdp: String) -> [String] {
        sdp.split(whereSeparator: \.isNewline).compactMap { line in
            guard line.hasPrefix("a=candidate:") else { return nil }
            let fields = line.split(separator: " ")
            return fields.count > 4 ? String(fields[4]) : nil
        }
    }

    /// The same description with the first hex digit of every certificate fingerprint changed.
    static func tamperingFingerprints(in sdp: String) -> String {
        // Line by line: in Swift "\r\n" is one Character, so split on any newline and rejoin with CRLF.
        sdp.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map { line in
            guard line.hasPrefix("a=fingerprint:"), let space = line.firstIndex(of: " ") else { return String(line) }
            let digit = line.index(after: space)
            let replacement = line[digit] == "0" ? "1" : "0"
            return String(line[..<digit]) + replacement + String(line[line.index(after: digit)...])
        }.joined(separator: "\r\n")
    }
}
