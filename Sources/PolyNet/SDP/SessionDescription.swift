// An SDP session (RFC 8866) as WebRTC uses it: ordered lines kept, typed accessors on top.

/// One `m=` section with its lines.
public struct MediaDescription: Hashable, Sendable {
    public var kind: String
    public var port: UInt16
    /// e.g. `UDP/TLS/RTP/SAVPF`.
    public var proto: String
    /// Payload types (as text, as in the m-line).
    public var formats: [String]
    /// `c=` value, e.g. `IN IP4 0.0.0.0`.
    public var connection: String?
    /// Other non-attribute lines (`i=`, `b=`, `k=`) verbatim, e.g. `b=AS:64`.
    public var otherLines: [String] = []
    public var attributes: [SDPAttribute]

    public init(
        kind: String = "audio", port: UInt16 = 9, proto: String = "UDP/TLS/RTP/SAVPF", formats: [String],
        connection: String? = "IN IP4 0.0.0.0", attributes: [SDPAttribute] = []
    ) {
        self.kind = kind
        self.port = port
        self.proto = proto
        self.formats = formats
        self.connection = connection
        self.attributes = attributes
    }

    public var mid: String? { attributes.value("mid") }
    /// The direction attribute; `sendrecv` when absent (RFC 8866 §6.7).
    public var direction: SDPDirection {
        attributes.lazy.compactMap { SDPDirection(rawValue: $0.name) }.first ?? .sendrecv
    }
    public var rtpMaps: [RTPMap] { attributes.values("rtpmap").compactMap(RTPMap.init) }
    /// `a=fmtp` parameters for `payloadType`, e.g. `minptime=10;useinbandfec=1`.
    public func fmtp(_ payloadType: Int) -> String? {
        attributes.values("fmtp").first { $0.split(separator: " ").first == Substring(String(payloadType)) }
            .map { String($0.drop { $0 != " " }.dropFirst()) }
    }
    public var rtcpMux: Bool { attributes.has("rtcp-mux") }
    public var iceUfrag: String? { attributes.value("ice-ufrag") }
    public var icePassword: String? { attributes.value("ice-pwd") }
    public var iceOptions: [String] { attributes.value("ice-options")?.split(separator: " ").map(String.init) ?? [] }
    /// Candidates with IP addresses (host names such as mDNS are skipped; they stay in `attributes`).
    public var candidates: [Candidate] { attributes.values("candidate").compactMap { Candidate(sdpValue: $0) } }
    public var endOfCandidates: Bool { attributes.has("end-of-candidates") }
    public var fingerprints: [SDPFingerprint] { attributes.values("fingerprint").compactMap(SDPFingerprint.init) }
    public var setup: SDPSetup? { attributes.value("setup").flatMap(SDPSetup.init) }
    /// Distinct SSRCs from `a=ssrc:` lines, in order.
    public var ssrcs: [UInt32] {
        var seen: [UInt32] = []
        for value in attributes.values("ssrc") {
            if let ssrc = value.split(separator: " ").first.flatMap({ UInt32($0) }), !seen.contains(ssrc) {
                seen.append(ssrc)
            }
        }
        return seen
    }
    public var extmaps: [SDPExtmap] { attributes.values("extmap").compactMap(SDPExtmap.init) }
    /// The first Opus/48000 payload type offered.
    public var opusPayloadType: Int? { rtpMaps.first { $0.isOpus }?.payloadType }
    /// The RFC 4733 telephone-event format at Opus's 48 kHz clock (the only one usable on an Opus stream,
    /// whose timestamps it shares), if offered or answered.
    public var telephoneEventPayloadType: Int? {
        rtpMaps.first { $0.encoding.lowercased() == "telephone-event" && $0.clockRate == 48000 }?.payloadType
    }
    /// Port 0 means the m-line is rejected or disabled.
    public var isRejected: Bool { port == 0 }
}

/// An SDP session description.
public struct SessionDescription: Hashable, Sendable {
    /// `o=` value: `<username> <sess-id> <sess-version> IN IP4 <address>`.
    public var origin: String
    public var sessionName: String = "-"
    public var timing: String = "0 0"
    public var connection: String?
    /// Other session-level non-attribute lines (`i=`, `u=`, `b=`, ...) verbatim.
    public var otherLines: [String] = []
    public var attributes: [SDPAttribute]
    public var media: [MediaDescription]

    public init(origin: String, attributes: [SDPAttribute] = [], media: [MediaDescription] = []) {
        self.origin = origin
        self.attributes = attributes
        self.media = media
    }

    /// Mids of the `a=group:BUNDLE` group (empty when absent).
    public var bundle: [String] {
        attributes.values("group").first { $0.hasPrefix("BUNDLE") }?.split(separator: " ").dropFirst().map(String.init)
            ?? []
    }
    public var iceLite: Bool { attributes.has("ice-lite") }

    /// The peer's ICE parameters: credentials (media level, else session level), candidates of all
    /// m-lines (deduplicated) and ice-lite. Nil without credentials.
    public var iceParameters: ICERemoteParameters? {
        let live = media.filter { !$0.isRejected }
        guard let ufrag = live.first?.iceUfrag ?? attributes.value("ice-ufrag"),
            let password = live.first?.icePassword ?? attributes.value("ice-pwd")
        else { return nil }
        var candidates: [Candidate] = []
        for candidate in live.flatMap(\.candidates) where !candidates.contains(candidate) {
            candidates.append(candidate)
        }
        return ICERemoteParameters(
            credentials: ICECredentials(ufrag: ufrag, password: password), candidates: candidates, isLite: iceLite)
    }

    /// DTLS fingerprints (media level, else session level).
    public var fingerprints: [SDPFingerprint] {
        let mediaLevel = media.first { !$0.isRejected }?.fingerprints ?? []
        return mediaLevel.isEmpty ? attributes.values("fingerprint").compactMap(SDPFingerprint.init) : mediaLevel
    }

    /// `a=setup` of the first live m-line (session level as fallback).
    public var setup: SDPSetup? {
        media.first { !$0.isRejected }?.setup ?? attributes.value("setup").flatMap(SDPSetup.init)
    }
}
