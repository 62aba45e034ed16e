// Master keys and salts per direction, as exported by DTLS-SRTP (RFC 5764 §4.2).

/// The SRTP master keys and salts for both directions of a session.
///
/// Holds secrets: never log it (its description hides the bytes).
public struct SRTPKeyingMaterial: Sendable, CustomStringConvertible {
    public var profile: SRTPProfile
    public var localMasterKey: [UInt8]
    public var localMasterSalt: [UInt8]
    public var remoteMasterKey: [UInt8]
    public var remoteMasterSalt: [UInt8]

    /// Our side of the DTLS handshake, which decides which half of the exported block is ours.
    public enum DTLSRole: Sendable {
        case client
        case server
    }

    /// Why keying material was refused.
    public enum Error: Swift.Error, Equatable, Sendable {
        /// The block or a key/salt has the wrong length for the profile.
        case wrongLength(expected: Int, actual: Int)
    }

    public init(
        profile: SRTPProfile, localMasterKey: [UInt8], localMasterSalt: [UInt8], remoteMasterKey: [UInt8],
        remoteMasterSalt: [UInt8]
    ) throws(Error) {
        for key in [localMasterKey, remoteMasterKey] where key.count != profile.keyLength {
            throw .wrongLength(expected: profile.keyLength, actual: key.count)
        }
        for salt in [localMasterSalt, remoteMasterSalt] where salt.count != profile.saltLength {
            throw .wrongLength(expected: profile.saltLength, actual: salt.count)
        }
        self.profile = profile
        self.localMasterKey = localMasterKey
        self.localMasterSalt = localMasterSalt
        self.remoteMasterKey = remoteMasterKey
        self.remoteMasterSalt = remoteMasterSalt
    }

    /// Splits the block exported with the label "EXTRACTOR-dtls_srtp" (60 bytes for AES-CM, 56 for GCM):
    /// client_key | server_key | client_salt | server_salt. The client's half is ours when we are the client.
    public init(profile: SRTPProfile, exportedKeyingMaterial block: [UInt8], role: DTLSRole) throws(Error) {
        guard block.count == profile.exportedKeyingMaterialLength else {
            throw .wrongLength(expected: profile.exportedKeyingMaterialLength, actual: block.count)
        }
        let k = profile.keyLength
        let s = profile.saltLength
        let clientKey = Array(block[0..<k])
        let serverKey = Array(block[k..<(2 * k)])
        let clientSalt = Array(block[(2 * k)..<(2 * k + s)])
        let serverSalt = Array(block[(2 * k + s)..<(2 * k + 2 * s)])
        switch role {
        case .client:
            try self.init(
                profile: profile, localMasterKey: clientKey, localMasterSalt: clientSalt, remoteMasterKey: serverKey,
                remoteMasterSalt: serverSalt)
        case .server:
            try self.init(
                profile: profile, localMasterKey: serverKey, localMasterSalt: serverSalt, remoteMasterKey: clientKey,
                remoteMasterSalt: clientSalt)
        }
    }

    /// The same material seen from the other end (our local keys become its remote keys).
    public var mirrored: SRTPKeyingMaterial {
        var copy = self
        swap(&copy.localMasterKey, &copy.remoteMasterKey)
        swap(&copy.localMasterSalt, &copy.remoteMasterSalt)
        return copy
    }

    public var description: String { "SRTPKeyingMaterial(\(profile), keys redacted)" }
}
