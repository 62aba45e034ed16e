// How one call's media endpoint behaves: which side it plays, codec, certificate, servers, timers.
import PolyAudio
import PolyCore
import PolyMedia
import PolyNet

/// Which side of the bridge protocol a `MediaEndpoint` plays.
public enum MediaRole: Sendable, Equatable {
    /// The calling side: full ICE, controlling, offerer with `a=setup:actpass` (DTLS role from the answer).
    case client
    /// The voice bridge: ICE-lite, controlled, answerer (answers `active` to `actpass`, so it is the DTLS client).
    case bridge
}

/// Settings of one `MediaEndpoint`.
public struct MediaEndpointConfiguration: Sendable {
    public var role: MediaRole
    /// What the microphone (client) or agent (bridge) stream is encoded with.
    public var codec: CodecSettings
    /// The rate the far end's audio is decoded and played out at (mono; `pullPlayout` fills 20 ms of it):
    /// 48 kHz for devices and files. A server whose agent works at a lower Opus rate decodes straight to it,
    /// which spares the decoder its resampling to 48 kHz.
    public var playoutSampleRate = 48_000
    /// Our DTLS certificate (`DTLSCertificate.shared()` in production: generating one costs milliseconds).
    public var certificate: DTLSCertificate
    /// STUN servers for server-reflexive candidates (client only; from the provision response's `iceServers`).
    public var stunServers: [TransportAddress]
    /// TURN servers for relay candidates (client only; from `iceServers` with their credentials). The
    /// endpoint allocates on each: over UDP from a host socket of the server's family, over TCP or TLS on a
    /// stream the shell opens (`MediaOutput.openStream`); `randomSeed` is replaced by one drawn from `seed`.
    public var turnServers: [TURNRelayServer] = []
    /// Offer and use relay candidates only (the W3C `iceTransportPolicy` "relay").
    public var relayOnly = false
    /// Seeds SSRC, sequence numbers, ICE transaction ids and RTCP jitter. Tests fix it; production draws it
    /// from `SystemRandomNumberGenerator`. ICE passwords always come from the system generator unless
    /// `deterministicCredentials` is set.
    public var seed: UInt64
    /// Tests only: derive ICE credentials from `seed` instead of the system generator.
    public var deterministicCredentials = false
    /// Bridge behind a known public address: candidates carry this IP instead of the bound one (port kept).
    public var advertisedAddress: IPAddress?
    /// With `advertisedAddress`, a 1:1 NAT that also maps the port (a bridge's shared media port behind a
    /// relay or NAT): candidates carry this port instead of the bound one.
    public var advertisedPort: UInt16?
    /// `mediaStalled` once no authenticated media (SRTP/SRTCP) arrived for this long while connected.
    public var stallTimeout: Duration = .seconds(2)
    /// Upper bound of the loss percentage given to the encoder (driven by the far end's receiver reports).
    public var maximumLossHintPercent = 20
    /// The loss (0...100 %) the encoder plans FEC for all call long, in place of `codec.expectedLossPercent` and the
    /// far end's receiver reports, which then change nothing (FEC, its bitrate raise, the clean-path mode): every
    /// receiver gets the same coding whatever it reports, which a benchmark comparing receivers needs. Nil: the
    /// reports drive it.
    public var pinnedLossHintPercent: Int?
    /// RTCP report interval before randomisation (RFC 3550 minimum 5 s; voice calls use about 1 s).
    public var rtcpInterval: Duration = .seconds(1)
    /// Send a receiver report one packet interval after packets go missing, when the last report showed no loss
    /// (RTP/AVPF early RTCP), so a sender that adapts FEC to reports (ours, libwebrtc's) turns it on up to an
    /// interval sooner.
    public var earlyLossReports = true
    /// The CNAME in RTCP SDES and `a=ssrc`.
    public var cname = "polyvoice"
    /// Client: offer RFC 4733 `telephone-event/48000` for DTMF (the bridge answers it if it can; without it
    /// `sendDTMF` mixes tones into the audio). Bridge: answer it when offered.
    public var telephoneEvents = true
    /// The widest audio band the encoder may code, over `codec.maxBandwidth` (nil: that, wideband by default).
    /// Wideband (8 kHz audio, SILK only) saves the CELT layer's CPU on a server; PESQ-WB and STOI measure no more.
    public var encoderMaxBandwidth: OpusBandwidth?
    /// Servers: while the far end's receiver reports show no loss, frames are coded in this cheaper mode
    /// (no in-band FEC); the main encoder takes over again from the first report of loss. Nil: always the
    /// main encoder.
    public var cleanPathCoding: CleanPathCoding?
    /// Jitter buffer tunables; the sample rate is forced to `playoutSampleRate` and `frameSamples` to 10 ms.
    public var jitterBuffer = JitterBufferConfiguration()

    public init(
        role: MediaRole, codec: CodecSettings = CodecSettings(), certificate: DTLSCertificate,
        stunServers: [TransportAddress] = [], seed: UInt64 = UInt64.random(in: 1...UInt64.max),
        advertisedAddress: IPAddress? = nil
    ) {
        self.role = role
        self.codec = codec
        self.certificate = certificate
        self.stunServers = stunServers
        self.seed = seed
        self.advertisedAddress = advertisedAddress
    }
}
