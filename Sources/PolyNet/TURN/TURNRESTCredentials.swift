// Time-limited TURN credentials in the TURN REST API scheme that coturn verifies with `use-auth-secret`:
import FoundationEssentials
// username `<unix expiry>:<name>`, password base64(HMAC-SHA1(shared secret, username)).

/// A username and password a TURN server sharing `secret` accepts until `expiry`.
public struct TURNRESTCredentials: Sendable, Equatable {
    public var username: String
    public var password: String

    /// Credentials for `name` (a call id) valid until `expiry` (seconds since 1970).
    public init(secret: String, name: String, expiry: Int) {
        username = "\(expiry):\(name)"
        password = Data(HMACSHA1.mac(key: Array(secret.utf8), data: Array(username.utf8))).base64EncodedString()
    }
}
