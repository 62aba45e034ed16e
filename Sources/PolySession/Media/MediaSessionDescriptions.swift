// Offers and answers of one call beyond PolyNet's single-line builders: several m-lines (the bridge's
// pull adds the agent's line), per-line directions, and the established DTLS role kept in re-offers.
import PolyNet

/// One negotiated m-line, seen from our side.
struct MediaLine: Equatable, Sendable {
    var mid: String
    var direction: SDPDirection
}

enum MediaSessionDescriptions {
    /// An offer with one audio section per line (in order), all in one BUNDLE group, Opus on `payloadType`
    /// (the one negotiated earlier: a re-offer must not change it; aiortc uses 96).
    static func offer(
        lines: [MediaLine], setup: SDPSetup, local: SDPLocalParameters,
        payloadType: Int = SDPNegotiation.opusPayloadType, telephoneEvent: Int? = nil
    ) -> SessionDescription {
        let sessions = lines.map {
            SDPNegotiation.offer(local: local, mid: $0.mid, direction: $0.direction, telephoneEvent: telephoneEvent)
        }
        guard var session = sessions.first else { return SDPNegotiation.offer(local: local) }
        session.media = sessions.indices.map { index in
            var section = sessions[index].media[0]
            replaceSetup(in: &section, with: setup)
            replacePayloadType(in: &section, with: payloadType)
            return section
        }
        session.attributes = session.attributes.map { attribute in
            attribute.name == "group" && (attribute.value ?? "").hasPrefix("BUNDLE")
                ? SDPAttribute("group", "BUNDLE " + lines.map(\.mid).joined(separator: " ")) : attribute
        }
        return session
    }

    /// Answers `offer` (all Opus audio lines accepted); a line sends only when `canSend(mid)` allows it.
    /// `a=ssrc` goes on sending lines only.
    static func answer(
        to offer: SessionDescription, local: SDPLocalParameters, preferredSetup: SDPSetup,
        acceptTelephoneEvent: Bool = true, canSend: (String) -> Bool
    ) throws(SDPError) -> SessionDescription {
        var withoutSSRC = local
        withoutSSRC.ssrc = nil
        var answer = try SDPNegotiation.answer(
            to: offer, local: withoutSSRC, capability: .sendrecv, preferredSetup: preferredSetup,
            acceptTelephoneEvent: acceptTelephoneEvent)
        for index in answer.media.indices where !answer.media[index].isRejected {
            let section = answer.media[index]
            let current = section.direction
            let direction = SDPDirection(sends: current.sends && canSend(section.mid ?? ""), receives: current.receives)
            replaceDirection(in: &answer.media[index], with: direction)
            if direction.sends, let ssrc = local.ssrc {
                let candidateStart =
                    answer.media[index].attributes.firstIndex {
                        $0.name == "candidate" || $0.name == "end-of-candidates"
                    }
                    ?? answer.media[index].attributes.endIndex
                answer.media[index].attributes.insert(
                    SDPAttribute("ssrc", "\(ssrc) cname:\(local.cname ?? "polyvoice")"), at: candidateStart)
            }
        }
        return answer
    }

    /// The live lines of a description, with directions as written in it.
    static func lines(of description: SessionDescription) -> [MediaLine] {
        description.media.compactMap { section in
            guard !section.isRejected, let mid = section.mid else { return nil }
            return MediaLine(mid: mid, direction: section.direction)
        }
    }

    static func replaceDirection(in section: inout MediaDescription, with direction: SDPDirection) {
        if let index = section.attributes.firstIndex(where: { SDPDirection(rawValue: $0.name) != nil }) {
            section.attributes[index] = SDPAttribute(direction.rawValue)
        } else {
            section.attributes.append(SDPAttribute(direction.rawValue))
        }
    }

    /// Moves the section's single Opus format from PolyNet's default payload type to `payloadType`.
    static func replacePayloadType(in section: inout MediaDescription, with payloadType: Int) {
        let old = SDPNegotiation.opusPayloadType
        guard payloadType != old, (0...127).contains(payloadType) else { return }
        section.formats = section.formats.map { $0 == String(old) ? String(payloadType) : $0 }
        section.attributes = section.attributes.map { attribute in
            guard attribute.name == "rtpmap" || attribute.name == "fmtp", let value = attribute.value,
                value.hasPrefix("\(old) ")
            else { return attribute }
            return SDPAttribute(attribute.name, "\(payloadType) " + value.dropFirst("\(old) ".count))
        }
    }

    static func replaceSetup(in section: inout MediaDescription, with setup: SDPSetup) {
        if let index = section.attributes.firstIndex(where: { $0.name == "setup" }) {
            section.attributes[index] = SDPAttribute("setup", setup.rawValue)
        }
    }
}
