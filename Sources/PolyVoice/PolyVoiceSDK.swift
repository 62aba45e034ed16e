// The entry point, spelled as in the PolyVoice mobile SDK: `PolyVoice.initialize(config)`, `PolyVoice.call(options:)`.
import Synchronization

/// PolyVoice's entry point. `PolyVoice` is the same type, so `PolyVoice.call(options:)` reads as on mobile.
///
/// ```swift
/// try PolyVoice.initialize(Configuration(apiKey: key, environment: .us, webrtcToken: token))
/// let call = try PolyVoice.call(options: VoiceOptions())
/// try await call.start()
/// ```
public enum PolyVoiceSDK {
    private static let shared = Mutex<Configuration?>(nil)

    /// Sets the configuration `call(options:)` uses (once, at app start; a later call replaces it).
    /// Throws `.invalidConfiguration` naming the bad field.
    public static func initialize(_ config: Configuration) throws(PolyError) {
        try config.validate()
        shared.withLock { $0 = config }
    }

    /// The configuration given to `initialize(_:)`, if any.
    public static var configuration: Configuration? { shared.withLock { $0 } }

    /// A new call with the configuration from `initialize(_:)`; start it with `start()`.
    /// Throws `.invalidConfiguration(field: "configuration", …)` before `initialize(_:)`.
    public static func call(options: VoiceOptions = VoiceOptions()) throws(PolyError) -> PolyCall {
        guard let config = configuration else {
            throw .invalidConfiguration(
                field: "configuration", reason: "is missing: call PolyVoice.initialize(_:) first")
        }
        return try PolyCall(configuration: config, options: options)
    }

    /// A new call with its own configuration, without global state (tests, several accounts).
    public static func call(config: Configuration, options: VoiceOptions = VoiceOptions()) throws(PolyError)
        -> PolyCall
    {
        try PolyCall(configuration: config, options: options)
    }
}

/// `PolyVoice.initialize(_:)` and `PolyVoice.call(options:)` as in the mobile SDK. Because this name
/// shadows the module's, the public types are also reachable as `PolyVoice.Configuration` etc.
public typealias PolyVoice = PolyVoiceSDK

extension PolyVoiceSDK {
    public typealias Configuration = PolyVoice::Configuration
    public typealias Environment = PolyVoice::Environment
    public typealias VoiceOptions = PolyVoice::VoiceOptions
    public typealias AudioInput = PolyVoice::AudioInput
    public typealias AudioOutput = PolyVoice::AudioOutput
    public typealias CodecSettings = PolyVoice::CodecSettings
    public typealias PolyError = PolyVoice::PolyError
    public typealias CallState = PolyVoice::CallState
    public typealias AudioState = PolyVoice::AudioState
    public typealias QualityWarning = PolyVoice::QualityWarning
    public typealias PolyCall = PolyVoice::PolyCall
    public typealias LogLevel = PolyVoice::LogLevel
    public typealias ICETransportPolicy = PolyVoice::ICETransportPolicy
    public typealias ICEServerConfiguration = PolyVoice::ICEServerConfiguration
}
