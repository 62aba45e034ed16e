// JSEP-subset offer and answer generation for Opus audio over UDP/TLS/RTP/SAVPF with BUNDLE.

/// Our side's transport parameters, shared by offers and answers.
public struct SDPLocalParameters: Hashable, Sendable {
    public var credentials: ICECredentials
    /// All gathered candidates (no trickle): they go into the SDP with `a=end-of-candidates`.
    public var candidates: [Candidate]
    /// Our DTLS certificate's fingerprint.
    public var fingerprint: SDPFingerprint
    /// The bridge is ICE-lite.
    public var iceLite: Bool = false
    /// SSRC and CNAME of what we send (written as `a=ssrc` on sending m-lines when set).
    public var ssrc: UInt32?
    public var cname: String?
    /// `o=` session id; use a random 62-bit value.
    public var sessionID: UInt64
    public var sessionVersion: UInt64 = 1

    public init(credentials: ICECredentials, candidates: [Candidate], fingerprint: SDPFingerprint, sessionID: UInt64) {
        self.credentials = credentials
        self.candidates = candidates
        self.fingerprint = fingerprint
        self.sessionID = sessionID
    }
}

/// Builds offers and answers (RFC 8829 subset).
public enum SDPNegotiation {
    /// Opus with the parameters PROTOCOL.md asks for.
    public static let opusFmtp = "minptime=10;useinbandfec=1"
    public static let opusPayloadType = 111
    /// telephone-event/48000 (RFC 4733 DTMF on the Opus stream), as libwebrtc numbers it.
    public static let telephoneEventPayloadType = 110

    /// The client's offer (PROTOCOL.md §2): full ICE, `setup:actpass`, one Opus audio m-line with
    /// `mid`, `rtcp-mux`, BUNDLE, all candidates and `end-of-candidates`; with `telephoneEvent`, also
    /// `telephone-event/48000` on that payload type (RFC 4733 DTMF).
    public static func offer(
        local: SDPLocalParameters, mid: String = "0", direction: SDPDirection = .sendrecv, telephoneEvent: Int? = nil
    ) -> SessionDescription {
        let audio = audioSection(
            mid: mid, payloadType: opusPayloadType, direction: direction, setup: .actpass, rtcpMux: true, local: local,
            telephoneEvent: telephoneEvent)
        return session(local: local, media: [audio])
    }

    /// Answers `offer`: each Opus audio m-line is accepted with the reversed direction (limited to
    /// `capability`), the offer's Opus payload type and DTLS role `preferredSetup` against `actpass`;
    /// other m-lines are rejected (port 0). Covers the bridge's pull, which adds a receive-only line. An
    /// offered `telephone-event/48000` is accepted on its payload type when `acceptTelephoneEvent`.
    public static func answer(
        to offer: SessionDescription, local: SDPLocalParameters, capability: SDPDirection = .sendrecv,
        preferredSetup: SDPSetup = .active, acceptTelephoneEvent: Bool = true
    ) throws(SDPError) -> SessionDescription {
        var sections: [MediaDescription] = []
        var accepted: [String] = []
        for offered in offer.media {
            guard offered.kind == "audio", !offered.isRejected, offered.proto.uppercased().hasSuffix("SAVPF"),
                let pt = offered.opusPayloadType, let mid = offered.mid
            else {
                sections.append(rejected(offered))
                continue
            }
            let reversed = offered.direction.reversed
            let direction = SDPDirection(
                sends: reversed.sends && capability.sends, receives: reversed.receives && capability.receives)
            let setup = answerSetup(to: offered.setup ?? offer.setup ?? .actpass, preferred: preferredSetup)
            var section = audioSection(
                mid: mid, payloadType: pt, direction: direction, setup: setup, rtcpMux: offered.rtcpMux, local: local,
                telephoneEvent: acceptTelephoneEvent ? offered.telephoneEventPayloadType : nil)
            section.proto = offered.proto
            sections.append(section)
            accepted.append(mid)
        }
        guard !accepted.isEmpty else { throw .nothingToAccept }
        // Only accepted mids join the BUNDLE group, in the offer's order.
        let offeredBundle = offer.bundle
        let bundle = offeredBundle.isEmpty ? accepted : offeredBundle.filter { accepted.contains($0) }
        return session(local: local, media: sections, bundle: bundle)
    }

    /// RFC 8842 §5.3: actpass → our preference (active or passive); active ↔ passive.
    public static func answerSetup(to offered: SDPSetup, preferred: SDPSetup) -> SDPSetup {
        switch offered {
        case .actpass: preferred == .passive ? .passive : .active
        case .active: .passive
        case .passive: .active
        case .holdconn: .holdconn
        }
    }

    private static func session(
        local: SDPLocalParameters, media: [MediaDescription], bundle: [String]? = nil
    ) -> SessionDescription {
        var attributes = [SDPAttribute("group", "BUNDLE " + (bundle ?? media.compactMap(\.mid)).joined(separator: " "))]
        if local.iceLite { attributes.append(SDPAttribute("ice-lite")) }
        return SessionDescription(
            origin: "polyvoice \(local.sessionID) \(local.sessionVersion) IN IP4 127.0.0.1", attributes: attributes,
            media: media)
    }

    private static func audioSection(
        mid: String, payloadType: Int, direction: SDPDirection, setup: SDPSetup, rtcpMux: Bool,
        local: SDPLocalParameters, telephoneEvent: Int? = nil
    ) -> MediaDescription {
        var attributes: [SDPAttribute] = [
            SDPAttribute("ice-ufrag", local.credentials.ufrag),
            SDPAttribute("ice-pwd", local.credentials.password),
        ]
        if !local.iceLite { attributes.append(SDPAttribute("ice-options", "ice2")) }
        attributes += [
            SDPAttribute("fingerprint", local.fingerprint.value),
            SDPAttribute("setup", setup.rawValue),
            SDPAttribute("mid", mid),
            SDPAttribute(direction.rawValue),
        ]
        if rtcpMux { attributes.append(SDPAttribute("rtcp-mux")) }
        attributes += [
            SDPAttribute(
                "rtpmap", RTPMap(payloadType: payloadType, encoding: "opus", clockRate: 48000, channels: 2).value),
            SDPAttribute("fmtp", "\(payloadType) \(opusFmtp)"),
        ]
        if let telephoneEvent {
            attributes += [
                SDPAttribute(
                    "rtpmap", RTPMap(payloadType: telephoneEvent, encoding: "telephone-event", clockRate: 48000).value),
                SDPAttribute("fmtp", "\(telephoneEvent) 0-15"),
            ]
        }
        if direction.sends, let ssrc = local.ssrc {
            attributes.append(SDPAttribute("ssrc", "\(ssrc) cname:\(local.cname ?? "polyvoice")"))
        }
        attributes += local.candidates.map { SDPAttribute("candidate", $0.sdpValue) }
        attributes.append(SDPAttribute("end-of-candidates"))
        // The default address is the first candidate's (RFC 8839 §4.2.1.2); 9/0.0.0.0 without one.
        let first = local.candidates.first?.address
        let connection = first.map { "IN \($0.family == .v4 ? "IP4" : "IP6") \($0.ip)" } ?? "IN IP4 0.0.0.0"
        return MediaDescription(
            port: first?.port ?? 9, formats: [String(payloadType)] + (telephoneEvent.map { [String($0)] } ?? []),
            connection: connection, attributes: attributes)
    }

    private static func rejected(_ offered: MediaDescription) -> MediaDescription {
        var section = MediaDescription(
            kind: offered.kind, port: 0, proto: offered.proto, formats: Array(offered.formats.prefix(1)),
            connection: "IN IP4 0.0.0.0")
        if let mid = offered.mid { section.attributes.append(SDPAttribute("mid", mid)) }
        section.attributes.append(SDPAttribute(SDPDirection.inactive.rawValue))
        return section
    }
}
