import Foundation
import PolySignaling
import PolyVoiceTesting
import Testing

@testable import PolyVoiceBridge

/// PROTOCOL.md's routes and errors against a running bridge with fake media.
@Suite struct ConformanceTests {
    @Test func fullCallThroughBridgeClient() async throws {
        let harness = try TestHarness()
        let client = harness.client()
        let call = try await client.provision(mode: "voice-agent")
        #expect(call.callId.hasPrefix("call-"))
        #expect(call.token.count == 32 && call.token.allSatisfy(\.isHexDigit))
        #expect(call.eventsURL != nil && call.pullURL != nil && call.renegotiateURL != nil)
        #expect(call.iceRestartURL?.path == "/api/v1/call/\(call.callId)/sdp/ice-restart")
        #expect(call.resumeGraceSeconds == 10)
        #expect(call.iceServers.isEmpty && call.trackName == "agent-audio")

        #expect(try await client.connect(offerSDP: "v=0\r\ns=offer\r\n") == "v=0\r\ns=answer-1\r\n")
        let media = try #require(harness.media(call.callId))
        media.packet()
        #expect(try await client.pull() == "v=0\r\ns=pull\r\n")
        try await client.renegotiate(answerSDP: "v=0\r\ns=pull-answer\r\n")
        #expect(media.state.withLock { $0.pullAnswers } == ["v=0\r\ns=pull-answer\r\n"])
        #expect(try await client.iceRestart(offerSDP: "v=0\r\ns=restart\r\n") == "v=0\r\ns=answer-2\r\n")
        #expect(harness.bridge.activeCalls == 1)
        await client.hangUp()
        #expect(await eventually { harness.bridge.activeCalls == 0 })
        #expect(media.state.withLock { $0.closed })
        #expect(harness.bridge.metricsText.contains("polyvoice_bridge_calls_total{outcome=\"hangup\"} 1"))
        harness.bridge.stop()
    }

    @Test func provisionErrors() async throws {
        let harness = try TestHarness()
        let noAuth = try await harness.request("POST", "/api/v1/call", body: #"{"mode":"voice-agent"}"#)
        #expect(noAuth.status == 401 && noAuth.errorCode == "unauthorized")
        let wrong = try await harness.request(
            "POST", "/api/v1/call", headers: ["Authorization": "Bearer \(TestHarness.webToken)x"],
            body: #"{"mode":"voice-agent"}"#)
        #expect(wrong.status == 401)
        let auth = ["Authorization": "Bearer \(TestHarness.webToken)"]
        let badJSON = try await harness.request("POST", "/api/v1/call", headers: auth, body: "{mode")
        #expect(badJSON.status == 400 && badJSON.errorCode == "bad_json")
        let mode = try await harness.request("POST", "/api/v1/call", headers: auth, body: #"{"mode":"karaoke"}"#)
        #expect(mode.status == 403 && mode.errorCode == "mode_not_allowed")
        let echo = try await harness.request("POST", "/api/v1/call", headers: auth, body: #"{"mode":"echo"}"#)
        #expect(echo.status == 200)
        let tooLarge = try await harness.request(
            "POST", "/api/v1/call", headers: auth, body: "{\"mode\":\"" + String(repeating: "x", count: 5000) + "\"}")
        #expect(tooLarge.status == 413)
        let health = try await harness.request("GET", "/healthz")
        #expect(health.status == 200)
        harness.bridge.stop()
    }

    @Test func perCallRouteErrors() async throws {
        let harness = try TestHarness()
        let call = try await harness.provisionRaw()
        let token = try #require(call.creds.token)
        let extra = try #require(call.creds.extra)
        let good = ["X-Call-Token": token]
        let bad = ["X-Call-Token": String(token.reversed())]
        let offer = #"{"sdp":"v=0\r\n","mid":"0"}"#

        for path in [call.creds.connectUrl, extra.pullUrl!, extra.renegotiateUrl!, extra.iceRestartUrl!] {
            let wrongToken = try await harness.request("POST", path, headers: bad, body: offer)
            #expect(wrongToken.status == 401 && wrongToken.errorCode == "bad_call_token", "\(path)")
            let noToken = try await harness.request("POST", path, body: offer)
            #expect(noToken.status == 401, "\(path)")
            let unknown = try await harness.request(
                "POST", path.replacingOccurrences(of: call.callId, with: "call-0000000000000000"), headers: good,
                body: offer)
            #expect(unknown.status == 404 && unknown.errorCode == "unknown_call", "\(path)")
        }
        let deleteWrong = try await harness.request("DELETE", "/api/v1/call/\(call.callId)", headers: bad)
        #expect(deleteWrong.status == 401)
        let deleteUnknown = try await harness.request("DELETE", "/api/v1/call/call-ffff", headers: good)
        #expect(deleteUnknown.status == 404)

        // ICE restart and renegotiate before connect; pull before media is connected.
        #expect(try await harness.request("POST", extra.iceRestartUrl!, headers: good, body: offer).status == 409)
        let pullEarly = try await harness.request("POST", extra.pullUrl!, headers: good, body: "{}")
        #expect(pullEarly.status == 409 && pullEarly.errorCode == "media_not_connected")

        let badJSON = try await harness.request("POST", call.creds.connectUrl, headers: good, body: #"{"sdp":1}"#)
        #expect(badJSON.status == 400 && badJSON.errorCode == "bad_json")
        let badSDP = try await harness.request(
            "POST", call.creds.connectUrl, headers: good, body: #"{"sdp":"hello","mid":"0"}"#)
        #expect(badSDP.status == 400 && badSDP.errorCode == "bad_sdp")
        let connected = try await harness.request("POST", call.creds.connectUrl, headers: good, body: offer)
        #expect(connected.status == 200)
        #expect(try await harness.request("POST", extra.pullUrl!, headers: good, body: "{}").status == 409)
        harness.media(call.callId)?.packet()
        let renegotiateFirst = try await harness.request(
            "POST", extra.renegotiateUrl!, headers: good, body: #"{"sdp":"v=0\r\n"}"#)
        #expect(renegotiateFirst.status == 409 && renegotiateFirst.errorCode == "no_pull")
        let pullBadJSON = try await harness.request("POST", extra.pullUrl!, headers: good, body: "[")
        #expect(pullBadJSON.status == 400)
        #expect(try await harness.request("POST", extra.pullUrl!, headers: good, body: "{}").status == 200)
        let badAnswer = try await harness.request(
            "POST", extra.renegotiateUrl!, headers: good, body: #"{"sdp":"nope"}"#)
        #expect(badAnswer.status == 400 && badAnswer.errorCode == "bad_sdp")
        let tooLarge = try await harness.request(
            "POST", call.creds.connectUrl, headers: good,
            body: "{\"sdp\":\"v=0" + String(repeating: "a", count: 5000) + "\"}")
        #expect(tooLarge.status == 413)

        let deleted = try await harness.request("DELETE", "/api/v1/call/\(call.callId)", headers: good)
        #expect(deleted.status == 200)
        #expect(try await harness.request("POST", call.creds.connectUrl, headers: good, body: offer).status == 404)
        harness.bridge.stop()
    }

    @Test func rateLimitAnswers429WithRetryAfter() async throws {
        let harness = try TestHarness(rateLimit: .init(burst: 3, ratePerSecond: 0.01))
        var statuses: [Int] = []
        var retryAfter: String?
        for _ in 0..<5 {
            let reply = try await harness.request("POST", "/api/v1/call", body: #"{"mode":"voice-agent"}"#)
            statuses.append(reply.status)
            if reply.status == 429 { retryAfter = reply.headers["retry-after"] }
        }
        #expect(statuses == [401, 401, 401, 429, 429])
        #expect(retryAfter.flatMap { Int($0) }.map { $0 >= 1 } == true)
        #expect(try await harness.request("GET", "/healthz").status == 200)  // not rate limited
        harness.bridge.stop()
    }

    @Test func maxCallsAnswers503WithRetryAfter() async throws {
        let harness = try TestHarness(maxCalls: 2)
        _ = try await harness.provisionRaw()
        _ = try await harness.provisionRaw()
        let full = try await harness.request(
            "POST", "/api/v1/call", headers: ["Authorization": "Bearer \(TestHarness.webToken)"],
            body: #"{"mode":"voice-agent"}"#)
        #expect(full.status == 503 && full.errorCode == "at_capacity" && full.headers["retry-after"] == "5")
        harness.bridge.stop()
    }

    @Test func metricsAndLogsNeverShowTokens() async throws {
        let harness = try TestHarness()
        let call = try await harness.provisionRaw()
        let token = try #require(call.creds.token)
        _ = try await harness.request(
            "POST", call.creds.connectUrl, headers: ["X-Call-Token": token], body: #"{"sdp":"v=0\r\n","mid":"0"}"#)
        let metrics = try await harness.request("GET", "/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(metrics.status == 200)
        for name in [
            "polyvoice_bridge_active_calls 1", "polyvoice_bridge_calls_total{outcome=", "rtp_packets_received_total",
            "rtp_packets_lost_total", "jitter_seconds", "concealed_seconds_total",
        ] {
            #expect(text.contains(name), "\(name)")
        }
        harness.bridge.stop()
        let lines = harness.logLines.withLock { $0 }
        #expect(lines.contains { $0.contains("\"event\":\"call.provisioned\"") })
        #expect(lines.contains { $0.contains("\"reason\":\"shutdown\"") })
        for line in lines {
            #expect(!line.contains(token) && !line.contains(TestHarness.webToken))
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)")
        }
    }

    @Test func refusesToStartWithoutTokens() {
        #expect(throws: BridgeError.noTokens) { try Bridge(configuration: BridgeConfiguration()).start() }
        let open = Bridge(configuration: BridgeConfiguration(allowAnyToken: true))
        #expect((try? open.start()) != nil)
        open.stop()
    }
}
