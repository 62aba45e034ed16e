// Helpers for the two header extensions PolyVoice negotiates: sdes:mid (RFC 9143) and ssrc-audio-level (RFC 6464).

/// URIs of the header extensions PolyVoice understands (negotiated with `a=extmap` in SDP).
public enum RTPExtensionURI {
    public static let mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
    public static let audioLevel = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
}

/// The RFC 6464 client-to-mixer audio level: voice activity flag and level in −dBov (0 loudest … 127 silence).
public struct RTPAudioLevel: Sendable, Equatable {
    public var voiceActivity: Bool
    /// Level in −dBov, 0…127.
    public var level: UInt8

    public init(voiceActivity: Bool, level: UInt8) {
        self.voiceActivity = voiceActivity
        self.level = min(level, 127)
    }

    /// Reads the 1-byte element data; nil when it is not exactly one byte (RFC 6464 §3).
    public init?<Data: Collection>(data: Data) where Data.Element == UInt8 {
        guard data.count == 1, let byte = data.first else { return nil }
        self.init(voiceActivity: byte & 0x80 != 0, level: byte & 0x7F)
    }

    /// The 1-byte element data.
    public var byte: UInt8 { (voiceActivity ? 0x80 : 0) | level }
}

extension RTPHeaderExtensions {
    /// Appends the MID element (RFC 9143: the mid as UTF-8, 1–16 bytes in the one-byte form).
    public mutating func appendMID(_ mid: String, id: UInt8) throws(ElementError) {
        try append(id: id, data: Array(mid.utf8))
    }

    /// Appends or updates the audio level element (updating in place does not allocate).
    public mutating func setAudioLevel(_ level: RTPAudioLevel, id: UInt8) throws(ElementError) {
        if !replace(id: id, with: CollectionOfOne(level.byte)) {
            try append(id: id, data: CollectionOfOne(level.byte))
        }
    }
}

extension RTPHeaderExtensionElements {
    /// The MID carried by element `id`, if present and valid UTF-8.
    public func mid(id: UInt8) -> String? {
        guard let data = data(id: id) else { return nil }
        return String(validating: data, as: UTF8.self)
    }

    /// The audio level carried by element `id`, if present and well formed.
    public func audioLevel(id: UInt8) -> RTPAudioLevel? { data(id: id).flatMap { RTPAudioLevel(data: $0) } }
}
