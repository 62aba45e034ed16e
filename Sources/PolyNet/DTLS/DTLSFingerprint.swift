// Certificate fingerprints as SDP carries them (RFC 8122 `a=fingerprint:sha-256 AB:CD:...`).

/// A hash of a DER certificate together with the hash function's SDP name.
public struct DTLSFingerprint: Hashable, Sendable, CustomStringConvertible {
    /// The hash functions WebRTC peers use in `a=fingerprint`.
    public enum Algorithm: String, Hashable, Sendable, CaseIterable {
        case sha256 = "sha-256"
        case sha384 = "sha-384"
        case sha512 = "sha-512"

        /// Digest length in bytes.
        public var digestLength: Int {
            switch self {
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }
    }

    public var algorithm: Algorithm
    public var digest: [UInt8]

    public init(algorithm: Algorithm, digest: [UInt8]) {
        self.algorithm = algorithm
        self.digest = digest
    }

    /// Parses the value of an `a=fingerprint` attribute (`sha-256 AB:CD:...`, hex in either case);
    /// nil for an unknown algorithm or a malformed or wrongly sized digest.
    public init?(sdpValue: some StringProtocol) {
        let parts = sdpValue.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, let algorithm = Algorithm(rawValue: parts[0].lowercased()) else { return nil }
        var digest: [UInt8] = []
        for pair in parts[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.count == 2, let byte = UInt8(pair, radix: 16) else { return nil }
            digest.append(byte)
        }
        guard digest.count == algorithm.digestLength else { return nil }
        self.init(algorithm: algorithm, digest: digest)
    }

    /// `sha-256 AB:CD:...` (upper-case hex), the form SDP wants.
    public var sdpValue: String {
        let hex = digest.map { byte -> String in
            let text = String(byte, radix: 16, uppercase: true)
            return text.count == 1 ? "0" + text : text
        }
        return "\(algorithm.rawValue) \(hex.joined(separator: ":"))"
    }

    public var description: String { sdpValue }
}
