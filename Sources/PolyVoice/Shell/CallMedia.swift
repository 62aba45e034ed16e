// What the call shell needs from a media session, so the shell can drive the real `MediaTransport`
// or a test double through the same steps.
import PolyCore
import PolyMedia
import PolySession
import PolySignaling

/// Progress of a call's media, reported by a `CallMedia` from any thread.
enum CallMediaEvent: Sendable, Equatable {
    case iceConnected
    case iceDisconnected
    case iceFailed
    /// DTLS finished and SRTP is keyed.
    case connected
    /// Inbound media or consent arrived (may be throttled).
    case mediaFlowing
    case mediaStalled
    /// The far end ended the media (RTCP BYE or DTLS close_notify).
    case remoteClosed
    /// The session cannot continue; the text has no secrets.
    case failed(String)
    /// No network path to the bridge (a `.transport` error); the text says what was tried.
    case noPath(String)
    /// A relay candidate's address changed (TURN re-allocation): like a local address change, ICE restarts.
    case relayAddressChanged
}

/// One call's media session as the shell drives it. Every method may be called from any task.
protocol CallMedia: AnyObject, Sendable {
    /// Gathers candidates and returns the complete offer (no trickle) and the mic line's mid.
    func createOffer() async throws -> (sdp: String, mid: String)
    func applyAnswer(_ sdp: String) async throws
    /// Applies the bridge's pull offer and returns our answer.
    func applyOffer(_ sdp: String) async throws -> String
    /// New ICE credentials: returns the re-offer for the bridge's `iceRestartUrl`.
    func restartICE() async throws -> String
    /// Applies the answer to an ICE restart offer.
    func applyRestartAnswer(_ sdp: String) async throws
    /// Checks the candidate pairs now instead of waiting (outage recovery).
    func keepChecking() async
    /// Whether a local candidate of the session is on this IP (netlink reports of removed addresses).
    func usesLocalAddress(_ ip: String) async -> Bool
    func setMuted(_ muted: Bool) async
    /// Drops everything buffered for playout.
    func flushPlayout() async
    func stats() async -> MediaStats
    /// DTLS close_notify, stop RTP, release sockets and audio. Idempotent.
    func close() async
}

/// What a media factory gets for one call.
struct CallMediaSetup: Sendable {
    var options: VoiceOptions
    /// STUN and TURN servers from the provisioning response (TURN ones with their credentials).
    var iceServers: [ICEServer]
    var audio: CallAudio
    /// The bridge's host (loopback bridges get loopback-only media).
    var bridgeHost: String?
    var logger: Logger
    var onEvent: @Sendable (CallMediaEvent) -> Void
}

/// Creates the media session of a call (after provisioning, before the offer).
typealias CallMediaFactory = @Sendable (CallMediaSetup) async throws -> any CallMedia
