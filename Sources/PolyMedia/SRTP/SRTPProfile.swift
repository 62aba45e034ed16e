// The SRTP protection profiles PolyVoice negotiates in DTLS-SRTP (RFC 5764, RFC 7714).

/// An SRTP protection profile: cipher, authentication and key sizes.
public enum SRTPProfile: Sendable {
    /// `SRTP_AES128_CM_HMAC_SHA1_80` (RFC 5764 §4.1.2): AES-128 counter mode, 80-bit HMAC-SHA1 tag.
    case aes128CmSha1_80
    /// `SRTP_AEAD_AES_128_GCM` (RFC 7714): AES-128 GCM with a 16-byte tag.
    case aeadAes128Gcm

    /// Master key length in bytes.
    public var keyLength: Int { 16 }

    /// Master salt length in bytes.
    public var saltLength: Int {
        switch self {
        case .aes128CmSha1_80: 14
        case .aeadAes128Gcm: 12
        }
    }

    /// The IANA DTLS-SRTP protection profile identifier (use_srtp extension).
    public var dtlsProfileID: UInt16 {
        switch self {
        case .aes128CmSha1_80: 0x0001
        case .aeadAes128Gcm: 0x0007
        }
    }

    /// The profile with a DTLS-SRTP identifier, if supported.
    public init?(dtlsProfileID: UInt16) {
        switch dtlsProfileID {
        case 0x0001: self = .aes128CmSha1_80
        case 0x0007: self = .aeadAes128Gcm
        default: return nil
        }
    }

    /// The profile's name as OpenSSL's `SSL_CTX_set_tlsext_use_srtp` expects it.
    public var openSSLName: String {
        switch self {
        case .aes128CmSha1_80: "SRTP_AES128_CM_SHA1_80"
        case .aeadAes128Gcm: "SRTP_AEAD_AES_128_GCM"
        }
    }

    /// Bytes `protectRTP` appends (authentication tag).
    public var rtpOverhead: Int {
        switch self {
        case .aes128CmSha1_80: 10
        case .aeadAes128Gcm: 16
        }
    }

    /// Bytes `protectRTCP` appends (tag plus the 4-byte E flag and SRTCP index).
    public var rtcpOverhead: Int { rtpOverhead + 4 }

    /// Length of the keying material block DTLS exports for this profile (RFC 5764 §4.2).
    public var exportedKeyingMaterialLength: Int { 2 * (keyLength + saltLength) }
}
