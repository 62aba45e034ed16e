// No registered secret, and no credential-shaped value, reaches a log line.
import Foundation
import Synchronization
import Testing

@testable import PolyCore

@Suite("Logging and redaction")
struct RedactionTests {
    final class Collected: Sendable {
        let records = Mutex<[LogRecord]>([])
        var all: [LogRecord] { records.withLock { $0 } }
    }

    func logger(level: LogLevel, redactor: Redactor = Redactor()) -> (Logger, Collected) {
        let collected = Collected()
        let logger = Logger(
            level: level, category: "call",
            sink: .handler { record in collected.records.withLock { $0.append(record) } },
            redactor: redactor)
        return (logger, collected)
    }

    @Test("No registered token appears in any log line at debug level")
    func registeredSecretsNeverLogged() {
        let secrets = [
            "wct_4f9a8b7c6d5e4f3a2b1c", "pct_0a1b2c3d4e5f6a7b8c9d", "sk_live_feedfacecafebeef", "call-5f9ec645",
            "sess-77aa88bb99cc",
        ]
        let redactor = Redactor()
        for secret in secrets { redactor.register(secret) }
        let (log, collected) = logger(level: .debug, redactor: redactor)
        let templates = [
            "POST /api/v1/call Authorization: Bearer %@",
            "X-Call-Token: %@",
            "x-call-token:%@",
            #"provision response {"callId":"call-5f9ec645","creds":{"token":"%@","connectUrl":"/api/v1/call/call-5f9ec645/sdp"}}"#,
            #"events auth frame {"type":"auth","token": "%@"}"#,
            "DELETE /api/v1/call/%@ (best effort)",
            "request https://bridge/x?apiKey=%@&v=1",
            "error: token %@ rejected",
            "%@%@",
            "session %@ resumed (%@)",
            "url-safe value %@/suffix",
        ]
        for template in templates {
            for secret in secrets {
                let message = template.replacingOccurrences(of: "%@", with: secret)
                log.debug(message)
                log.info(message)
                log.error(message)
            }
        }
        let lines = collected.all
        #expect(lines.count == templates.count * secrets.count * 3)
        for line in lines {
            for secret in secrets {
                #expect(!line.message.contains(secret), "\(line.message)")
                // Not even most of it: at most 4 leading characters remain visible.
                #expect(!line.message.contains(secret.dropFirst(4)), "\(line.message)")
            }
        }
        #expect(lines.contains { $0.message.contains("wct_…(redacted)") })
    }

    @Test(
        "Credential patterns are masked even when never registered",
        arguments: [
            ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig", "eyJhbGciOiJIUzI1NiJ9"),
            (#"{"token":"unregistered-per-call-token"}"#, "unregistered-per-call-token"),
            (#"{"token" : "spaced-token-value"}"#, "spaced-token-value"),
            ("X-Call-Token: hdr-token-value-1", "hdr-token-value-1"),
            ("GET /x?apiKey=querykey123&y=2", "querykey123"),
            (#"{"apiKey":"jsonkey456"}"#, "jsonkey456"),
            (#"iceServers [{"urls":["turn:x"],"username":"u","credential":"turnpass789"}]"#, "turnpass789"),
            ("webrtcToken=cfgtoken000", "cfgtoken000"),
        ])
    func patterns(message: String, secret: String) {
        let redacted = Redactor.redactPatterns(in: message)
        #expect(!redacted.contains(secret), "\(redacted)")
        #expect(redacted.contains("(redacted)"))
    }

    @Test("Ordinary text is left alone")
    func ordinaryText() {
        for text in [
            "ICE connected on 127.0.0.1:5000 after 12 ms", "tokens left: none", "state connecting → connected",
            "the token was rejected",
        ] {
            #expect(Redactor.redactPatterns(in: text) == text)
        }
    }

    @Test("Levels filter messages, and messages below the level are never built")
    func levels() {
        let (log, collected) = logger(level: .warn)
        log.error("e")
        log.warn("w")
        log.info("i")
        log.debug("d")
        #expect(collected.all.map(\.level) == [.error, .warn])
        let (silent, none) = logger(level: .none)
        silent.error("nothing")
        #expect(none.all.isEmpty)
        var built = false
        func expensive() -> String {
            built = true
            return "x"
        }
        log.debug(expensive())
        #expect(!built)
        #expect(log.child("media").category == "media")
    }

    @Test("Short secrets are masked whole")
    func shortSecret() {
        #expect(Redactor.marker(for: "abc") == "…(redacted)")
        #expect(Redactor.marker(for: "0123456789abcdef") == "0123…(redacted)")
        let redactor = Redactor()
        redactor.register("abc")
        redactor.register("")
        #expect(redactor.redact("xabcx") == "x…(redacted)x")
    }
}
