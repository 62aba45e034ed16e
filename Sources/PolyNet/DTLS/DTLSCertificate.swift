// The self-signed ECDSA P-256 certificate WebRTC peers authenticate by fingerprint, not by a CA.
import COpenSSL

/// A self-signed ECDSA P-256 certificate and its private key (owned OpenSSL objects, immutable).
///
/// Sendable: after generation the objects are only read (OpenSSL up-references them per SSL_CTX).
public final class DTLSCertificate: @unchecked Sendable {
    let certificate: OpaquePointer
    let privateKey: OpaquePointer
    /// The SHA-256 fingerprint to put in our SDP (`fingerprint.sdpValue` gives `sha-256 AB:CD:...`).
    public let fingerprint: DTLSFingerprint

    /// Generates a new key pair and certificate (valid from a day ago for 30 days, random serial).
    public static func generate(commonName: String = "PolyVoice") throws(DTLSError) -> DTLSCertificate {
        guard let key = pv_evp_ec_p256_gen() else { throw .setup("EC P-256 key generation failed") }
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw .setup("X509_new failed")
        }
        var serial: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &serial) { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), 8) }
        let ok =
            X509_set_version(x509, 2) == 1
            && ASN1_INTEGER_set(X509_get_serialNumber(x509), Int(serial & 0x7FFF_FFFF)) == 1
            && X509_gmtime_adj(X509_getm_notBefore(x509), -86_400) != nil
            && X509_gmtime_adj(X509_getm_notAfter(x509), 30 * 86_400) != nil
            && X509_set_pubkey(x509, key) == 1
            && setName(x509, commonName)
            && X509_sign(x509, key, EVP_sha256()) > 0
        guard ok, let fingerprint = Self.digest(of: x509, .sha256) else {
            X509_free(x509)
            EVP_PKEY_free(key)
            throw .setup("building the self-signed certificate failed")
        }
        return DTLSCertificate(certificate: x509, privateKey: key, fingerprint: fingerprint)
    }

    /// One certificate for the whole process, generated on first use (generation costs ~1 ms).
    public static func shared() throws(DTLSError) -> DTLSCertificate {
        let result = sharedResult
        switch result {
        case .success(let certificate): return certificate
        case .failure(let error): throw error
        }
    }

    private static let sharedResult: Result<DTLSCertificate, DTLSError> = {
        do throws(DTLSError) { return .success(try generate()) } catch { return .failure(error) }
    }()

    private init(certificate: OpaquePointer, privateKey: OpaquePointer, fingerprint: DTLSFingerprint) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.fingerprint = fingerprint
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(privateKey)
    }

    /// The fingerprint of this certificate with another hash function.
    public func fingerprint(_ algorithm: DTLSFingerprint.Algorithm) -> DTLSFingerprint? {
        Self.digest(of: certificate, algorithm)
    }

    /// Hashes a DER certificate (ours or the peer's) with `algorithm`.
    static func digest(of x509: OpaquePointer, _ algorithm: DTLSFingerprint.Algorithm) -> DTLSFingerprint? {
        let md: OpaquePointer? =
            switch algorithm {
            case .sha256: EVP_sha256()
            case .sha384: EVP_sha384()
            case .sha512: EVP_sha512()
            }
        var buffer = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(x509, md, &buffer, &length) == 1 else { return nil }
        return DTLSFingerprint(algorithm: algorithm, digest: Array(buffer.prefix(Int(length))))
    }
}

private func setName(_ x509: OpaquePointer, _ commonName: String) -> Bool {
    guard let name = X509_get_subject_name(x509) else { return false }
    let added = commonName.withCString { cn in
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, cn, -1, -1, 0) == 1
    }
    return added && X509_set_issuer_name(x509, name) == 1
}
