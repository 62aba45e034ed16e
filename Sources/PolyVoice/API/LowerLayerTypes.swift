// Types of the SDK's public API that live in lower layers, named here so `import PolyVoice` alone reaches them.
import PolyCore
import PolyNet
import PolySession

/// Opus settings of the microphone stream (`VoiceOptions.codec`); defined with the media engine.
public typealias CodecSettings = PolySession.CodecSettings
/// Log verbosity (`Configuration.logLevel`); defined with the logger in `PolyCore`.
public typealias LogLevel = PolyCore.LogLevel
/// Seeded impairment of a call's own packets (`VoiceOptions.networkImpairment`); the model lives with the
/// network layer, where the transport applies it.
public typealias NetworkImpairment = PolyNet.NetworkImpairment
