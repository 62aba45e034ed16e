// Keying material exported from a DTLS-SRTP handshake (RFC 5764 §4.2), ready for the SRTP session.

/// The SRTP protection profiles we offer in `use_srtp`, with their IANA identifiers.
public enum DTLSSRTPProfile: UInt16, Hashable, Sendable, CaseIterable {
    /// SRTP_AES128_CM_HMAC_SHA1_80.
    case aes128CmSha1_80 = 0x0001
    /// SRTP_AEAD_AES_128_GCM (RFC 7714).
    case aeadAes128Gcm = 0x0007

    /// The name OpenSSL's `SSL_CTX_set_tlsext_use_srtp` takes.
    var openSSLName: String {
        switch self {
        case .aes128CmSha1_80: "SRTP_AES128_CM_SHA1_80"
        case .aeadAes128Gcm: "SRTP_AEAD_AES_128_GCM"
        }
    }

    /// Master key length in bytes.
    public var keyLength: Int { 16 }
    /// Master salt length in bytes.
    public var saltLength: Int {
        switch self {
        case .aes128CmSha1_80: 14
        case .aeadAes128Gcm: 12
        }
    }
}

/// What `SSL_export_keying_material("EXTRACTOR-dtls_srtp")` produced, and which side we were.
///
/// `keyingMaterial` is laid out `client_key | server_key | client_salt | server_salt`; the same bytes
/// come out on both ends, and `isClient` says which halves are ours. Never logged: `description` is redacted.
public struct DTLSSRTPKeys: Equatable, Sendable, CustomStringConvertible {
    /// IANA SRTP protection profile: 0x0001 AES128_CM_SHA1_80, 0x0007 AEAD_AES_128_GCM.
    public var profileID: UInt16
    public var keyingMaterial: [UInt8]
    public var isClient: Bool

    public init(profileID: UInt16, keyingMaterial: [UInt8], isClient: Bool) {
        self.profileID = profileID
        self.keyingMaterial = keyingMaterial
        self.isClient = isClient
    }

    public var profile: DTLSSRTPProfile? { DTLSSRTPProfile(rawValue: profileID) }

    /// Our master key followed by our master salt (what protects what we send); empty if the profile is unknown.
    public var localKeyAndSalt: [UInt8] { keyAndSalt(ofClient: isClient) }
    /// The peer's master key followed by its master salt (what protects what we receive).
    public var remoteKeyAndSalt: [UInt8] { keyAndSalt(ofClient: !isClient) }

    private func keyAndSalt(ofClient client: Bool) -> [UInt8] {
        guard let profile else { return [] }
        let key = profile.keyLength
        let salt = profile.saltLength
        guard keyingMaterial.count == 2 * (key + salt) else { return [] }
        let keyStart = client ? 0 : key
        let saltStart = 2 * key + (client ? 0 : salt)
        return Array(keyingMaterial[keyStart..<(keyStart + key)] + keyingMaterial[saltStart..<(saltStart + salt)])
    }

    public var description: String {
        "DTLSSRTPKeys(profile: 0x\(String(profileID, radix: 16)), \(keyingMaterial.count) bytes, redacted)"
    }
}
