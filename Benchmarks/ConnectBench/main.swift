// ConnectBench: time from "start ICE" (the offerer applies the answer, so connectivity checks begin) to
// "SRTP keys ready" (DTLS done, our `.connected` event) on loopback UDP, 127.0.0.1 only. In one run, rounds
// alternate between our own peer (the bridge role: ICE-lite, answering `a=setup:active`) and aiortc (full
// ICE, also answering `active`); our client offers in both. Prints medians and the ratio between them.
// Usage: ConnectBench [rounds] (default 20; one extra warm-up round each is not counted).
import Foundation
import InteropSupport
import PolyCore
import PolyNet
import PolySession

OpenSSLExitCleanUp.disable()  // the event loop may still close a DTLS session at `exit`

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
}

/// The far end's answer and how to hang it up after the measurement.
struct Answer {
    let sdp: String
    let hangUp: @Sendable () async -> Void
}

/// One call from offer to `.connected`; returns start-ICE → keys-ready.
func connect(answerer: (String) async throws -> Answer, loop: EventLoop, certificate: DTLSCertificate) async throws
    -> Duration
{
    let events = MediaEventRecorder()
    let client = try MediaTransport(
        configuration: MediaEndpointConfiguration(role: .client, certificate: certificate), localIPs: [.loopbackV4],
        loop: loop, onEvent: { events.record($0) })
    let offer = try await client.createOffer()
    let answer = try await answerer(offer)
    let start = Instant.now()
    try await client.applyAnswer(answer.sdp)
    let connected = await events.wait(for: .connected, timeout: .seconds(5))
    await client.close()
    await answer.hangUp()
    guard let connected else { throw BenchFailure(description: "no connection; events \(events.all)") }
    return connected - start
}

func milliseconds(_ duration: Duration) -> Double { duration.inMilliseconds }

func summary(_ name: String, _ samples: [Double]) -> (median: Double, p90: Double) {
    let sorted = samples.sorted()
    let median =
        sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    let p90 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.9).rounded(.up)) - 1)]
    print(
        String(
            format: "%@: median %.2f ms, min %.2f ms, p90 %.2f ms, max %.2f ms (n=%d)", name, median, sorted[0], p90,
            sorted[sorted.count - 1], sorted.count))
    return (median, p90)
}

func run() async throws {
    let rounds = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 20
    let loop = try EventLoop(name: "connect-bench")
    defer { loop.shutdown() }
    let certificate = try DTLSCertificate.shared()
    let peer = try AiortcPeer()
    var own: [Double] = []
    var aiortc: [Double] = []
    for round in 0...rounds {
        let ownTime = try await connect(
            answerer: { offer in
                let bridge = try MediaTransport(
                    configuration: MediaEndpointConfiguration(role: .bridge, certificate: certificate),
                    localIPs: [.loopbackV4], loop: loop)
                return Answer(sdp: try await bridge.applyOffer(offer), hangUp: { await bridge.close() })
            }, loop: loop, certificate: certificate)
        let aiortcTime = try await connect(
            answerer: { offer in
                Answer(sdp: try await peer.answer(offer, tone: 1_000), hangUp: { try? await peer.closeConnection() })
            }, loop: loop, certificate: certificate)
        if round > 0 {  // round 0 warms up OpenSSL, the sockets and aiortc's imports
            own.append(milliseconds(ownTime))
            aiortc.append(milliseconds(aiortcTime))
        }
    }
    await peer.quit()
    print("ConnectBench: start ICE → SRTP keys ready, loopback UDP, our client offering")
    let (ownMedian, ownP90) = summary("our ICE-lite bridge peer", own)
    let (aiortcMedian, aiortcP90) = summary("aiortc 1.16 peer       ", aiortc)
    print(String(format: "ratio aiortc / own peer: %.2f", aiortcMedian / ownMedian))
    print(
        String(
            format: "target ≤ 30 ms against our own peer: %@ (median %.2f ms)", ownMedian <= 30 ? "met" : "MISSED",
            ownMedian))
    let result: [String: Any] = [
        "bench": "ConnectBench", "own_median_ms": ownMedian, "own_p90_ms": ownP90, "aiortc_median_ms": aiortcMedian,
        "aiortc_p90_ms": aiortcP90, "ratio_aiortc_over_own": aiortcMedian / ownMedian, "target_ms": 30.0,
        "rounds": rounds, "what": "start ICE to SRTP keys ready, loopback UDP",
    ]
    let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys, .withoutEscapingSlashes])
    print("RESULT_JSON " + String(decoding: json, as: UTF8.self))
}

do {
    try await run()
} catch {
    print("ConnectBench failed: \(error)")
    exit(1)
}
