// The key of the STUN long-term credential mechanism (RFC 8489 §9.2.2): MD5(username ":" realm ":" password).
import COpenSSL

/// The MESSAGE-INTEGRITY key TURN requests and responses are signed with once the server sent its realm.
///
/// The password is used as given (no SASLprep/OpaqueString): TURN REST credentials are base64 ASCII.
public enum LongTermCredential {
    public static func key(username: String, realm: String, password: String) -> [UInt8] {
        md5(Array("\(username):\(realm):\(password)".utf8))
    }

    /// MD5 through OpenSSL's EVP API (the digest STUN mandates here; not used for anything else).
    static func md5(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { bytes in
            EVP_Digest(bytes.baseAddress, bytes.count, &out, &length, EVP_md5(), nil)
        }
        // EVP_Digest only fails on allocation failure or a missing provider; an empty key then fails integrity.
        return ok == 1 ? Array(out.prefix(Int(length))) : []
    }
}
