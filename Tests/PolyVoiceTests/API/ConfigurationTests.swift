// Configuration, environment and option validation, and the bridge URLs of PROTOCOL.md's hosts table.
import Foundation
import Testing

@testable import PolyVoice

@Suite("Configuration and options")
struct ConfigurationTests {
    @Test(
        "Bridge base URLs follow the hosts table",
        arguments: [
            (Environment.us, "https://webrtc-bridge.us-1.platform.polyai.app/"),
            (.uk, "https://webrtc-bridge.uk-1.platform.polyai.app/"),
            (.euw, "https://webrtc-bridge.euw-1.platform.polyai.app/"),
            (.cluster("staging-2"), "https://webrtc-bridge.staging-2.platform.polyai.app/"),
            (.custom(bridge: URL(string: "https://bridge.example.com/voice")!), "https://bridge.example.com/voice/"),
            (.custom(bridge: URL(string: "http://10.0.0.2:8080/")!), "http://10.0.0.2:8080/"),
            (.local(port: 8443), "http://127.0.0.1:8443/"),
        ])
    func hosts(environment: Environment, expected: String) throws {
        #expect(try environment.bridgeBaseURL.absoluteString == expected)
    }

    @Test(
        "Invalid environments are rejected naming the environment field",
        arguments: [
            Environment.cluster(""), .cluster("-dash"), .cluster("Upper"), .cluster("a.b"), .cluster("a/b"),
            .local(port: 0), .local(port: 65536), .custom(bridge: URL(string: "ftp://host/")!),
            .custom(bridge: URL(string: "file:///tmp/x")!), .custom(bridge: URL(string: "https://host/?token=x")!),
        ])
    func invalidEnvironment(environment: Environment) {
        #expect {
            try environment.validate()
        } throws: { error in
            guard case .invalidConfiguration(let field, _) = error as? PolyError else { return false }
            return field == "environment"
        }
    }

    /// The field an `.invalidConfiguration` error names; nil when `body` succeeds.
    func field(of body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            if case .invalidConfiguration(let field, _) = error as? PolyError { return field }
            return "unexpected \(error)"
        }
    }

    @Test("Configuration validation names the bad field")
    func configurationFields() {
        let good = Configuration(apiKey: "key-123", environment: .local(port: 9000), webrtcToken: "wct-abc")
        #expect(field { try good.validate() } == nil)
        #expect(good.logLevel == .error)
        var config = good
        config.apiKey = ""
        #expect(field { try config.validate() } == "apiKey")
        config = good
        config.apiKey = "has space"
        #expect(field { try config.validate() } == "apiKey")
        config = good
        config.environment = .cluster("BAD")
        #expect(field { try config.validate() } == "environment")
        config = good
        config.hostIdentifier = ""
        #expect(field { try config.validate() } == "hostIdentifier")
        config = good
        config.webrtcToken = "tok\nen"
        #expect(field { try config.validate() } == "webrtcToken")
    }

    @Test("The per-call token and signaling host win over the configuration's")
    func overrides() throws {
        let config = Configuration(apiKey: "key", environment: .us, webrtcToken: "global-token")
        #expect(try config.webrtcToken(for: VoiceOptions()) == "global-token")
        #expect(try config.webrtcToken(for: VoiceOptions(webrtcToken: "call-token")) == "call-token")
        let host = URL(string: "http://127.0.0.1:7000")!
        #expect(
            try config.bridgeBaseURL(for: VoiceOptions(signalingHost: host)).absoluteString == "http://127.0.0.1:7000/")
        #expect(try config.bridgeBaseURL(for: VoiceOptions()).host == "webrtc-bridge.us-1.platform.polyai.app")
        let noToken = Configuration(apiKey: "key")
        #expect(field { _ = try noToken.webrtcToken(for: VoiceOptions()) } == "webrtcToken")
    }

    @Test("Voice options: defaults and validation")
    func voiceOptions() {
        let options = VoiceOptions()
        #expect(options.codec.sampleRate == 48_000 && options.codec.channels == 1)
        #expect(options.codec.frameMilliseconds == 20 && options.codec.samplesPerFrame == 960)
        #expect(
            options.codec.bitrate == 48_000 && options.codec.variableBitrate && options.codec.maxBandwidth == .wideband)
        #expect(options.codec.forwardErrorCorrection && !options.codec.discontinuousTransmission)
        #expect(options.codec.complexity == 9)
        #expect(options.reconnectTimeout == .seconds(30) && options.connectTimeout == .seconds(30))
        #expect(field { try options.validate() } == nil)
        var bad = options
        bad.codec.bitrate = 1000
        #expect(field { try bad.validate() } == "codec.bitrate")
        bad = options
        bad.codec.frameMilliseconds = 25
        #expect(field { try bad.validate() } == "codec.frameMilliseconds")
        bad = options
        bad.codec.complexity = 11
        #expect(field { try bad.validate() } == "codec.complexity")
        bad = options
        bad.connectTimeout = .zero
        #expect(field { try bad.validate() } == "connectTimeout")
        bad = options
        bad.signalingHost = URL(string: "ws://host/")
        #expect(field { try bad.validate() } == "signalingHost")
        bad = options
        bad.input = .device("")
        #expect(field { try bad.validate() } == "input")
        bad = options
        let (_, continuation) = AsyncStream.makeStream(of: [Int16].self)
        bad.output = .buffer(continuation, sampleRate: 1)
        #expect(field { try bad.validate() } == "output")
        #expect(CallPolicy(options: VoiceOptions(reconnectTimeout: .seconds(5))).reconnectTimeout == .seconds(5))
    }

    @Test("Descriptions never show the API key or tokens")
    func descriptionsHideSecrets() {
        let config = Configuration(
            apiKey: "sk_live_0123456789abcdef", environment: .us, webrtcToken: "wct_secret_9876543210")
        let options = VoiceOptions(webrtcToken: "per_call_override_555555")
        for text in [
            config.description, String(reflecting: config), "\(config)", options.description,
            String(reflecting: options),
        ] {
            #expect(!text.contains("0123456789abcdef"))
            #expect(!text.contains("secret_9876543210"))
            #expect(!text.contains("override_555555"))
            #expect(text.contains("(redacted)"))
        }
    }

    @Test("Error retryability and user-facing descriptions")
    func errors() {
        #expect(PolyError.transport("reset").isRetryable)
        #expect(PolyError.voice(.timedOut).isRetryable)
        #expect(PolyError.voice(.disconnected).isRetryable)
        #expect(!PolyError.auth(.unauthorized).isRetryable)
        #expect(!PolyError.invalidConfiguration(field: "apiKey", reason: "x").isRetryable)
        #expect(!PolyError.voice(.deviceUnavailable("USB")).isRetryable)
        #expect(PolyError.auth(.unauthorized).description.contains("web calling token"))
        #expect(
            PolyError.invalidConfiguration(field: "apiKey", reason: "must not be empty").description.contains("apiKey"))
        let leaky = PolyError.voice(.signalingFailed("Bridge connect failed (401) with X-Call-Token: pct_abcdef123456"))
        #expect(!leaky.description.contains("pct_abcdef123456"))
        #expect(leaky.description.contains("(401)"))
    }

    @Test("Call states: active and terminal")
    func callStates() {
        #expect(CallState.connecting.isActive && CallState.reconnecting(attempt: 2).isActive)
        #expect(!CallState.idle.isActive && !CallState.ended.isActive)
        #expect(CallState.failed(.voice(.timedOut)).isTerminal && CallState.ended.isTerminal)
        #expect(!CallState.connected.isTerminal)
        #expect(CallState.reconnecting(attempt: 3).description == "reconnecting (attempt 3)")
    }
}
