// RFC 8285 header extension forms and their "defined by profile" values.

/// How the elements of an RTP header extension block are encoded (RFC 8285 §4).
public enum RTPHeaderExtensionForm: Sendable, Equatable {
    /// Profile 0xBEDE: 1-byte element headers, IDs 1–14, 1–16 data bytes.
    case oneByte
    /// Profile 0x100x: 2-byte element headers, IDs 1–255, 0–255 data bytes; `appBits` is the low nibble.
    case twoByte(appBits: UInt8)

    /// The 16-bit "defined by profile" field for this form.
    public var profile: UInt16 {
        switch self {
        case .oneByte: 0xBEDE
        case .twoByte(let appBits): 0x1000 | UInt16(appBits & 0x0F)
        }
    }

    /// The form a profile value announces, or nil for a non-RFC 8285 extension.
    public init?(profile: UInt16) {
        if profile == 0xBEDE {
            self = .oneByte
        } else if profile & 0xFFF0 == 0x1000 {
            self = .twoByte(appBits: UInt8(profile & 0x0F))
        } else {
            return nil
        }
    }
}
