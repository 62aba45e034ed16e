// HMAC-SHA1 for STUN MESSAGE-INTEGRITY (short-term credentials: key = the ICE password's bytes).
import COpenSSL

enum HMACSHA1 {
    static let length = 20

    static func mac(key: [UInt8], data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        var outLength: UInt32 = 0
        key.withUnsafeBytes { keyBytes in
            data.withUnsafeBytes { dataBytes in
                _ = HMAC(
                    EVP_sha1(), keyBytes.baseAddress, Int32(keyBytes.count),
                    dataBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), dataBytes.count, &out, &outLength)
            }
        }
        return Array(out.prefix(length))
    }
}
