// Types of the SDK's public API that live in lower layers, named here so `import PolyVoice` alone reaches them.
import PolyAudio
import PolyCore
import PolyMedia
import PolyNet
import PolySession

/// Opus settings of the microphone stream (`VoiceOptions.codec`); defined with the media engine.
public typealias CodecSettings = PolySession.CodecSettings
/// Log verbosity (`Configuration.logLevel`); defined with the logger in `PolyCore`.
public typealias LogLevel = PolyCore.LogLevel
/// Seeded impairment of a call's own packets (`VoiceOptions.networkImpairment`); the model lives with the
/// network layer, where the transport applies it.
public typealias NetworkImpairment = PolyNet.NetworkImpairment
/// How `PolyCall.sendDTMF` sent its digits (RFC 4733 events or in-band tones); defined with the RTP layer.
public typealias DTMFMethod = PolyMedia.DTMFMethod
/// An app's frame source and sink on the call's audio clock (`AudioInput.frames`, `AudioOutput.frames`) and
/// their frame format (48 kHz mono, 20 ms); defined with the audio endpoints.
public typealias AudioFrameSource = PolyAudio.AudioFrameSource
public typealias AudioFrameSink = PolyAudio.AudioFrameSink
public typealias AudioFrameFormat = PolyAudio.AudioFrameFormat
