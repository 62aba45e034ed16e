// Why a TURN allocation (or one peer's permission or channel) failed, naming the server, never a credential.

/// A TURN failure. Every case names the server as configured (`serverName`, e.g. `turn.example.org:3478`).
public enum TURNError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 401 to a request that carried credentials: the username or password is wrong (or expired).
    case unauthorized(server: String)
    /// 441 Wrong Credentials: the credentials do not match the allocation's.
    case wrongCredentials(server: String)
    /// 403 Forbidden: the server refuses this request (e.g. a peer address it will not relay to).
    case forbidden(server: String)
    /// 437 Allocation Mismatch that persisted after one re-allocation.
    case allocationMismatch(server: String)
    /// 442 Unsupported Transport Protocol: the server does not relay UDP.
    case unsupportedTransport(server: String)
    /// 486 Allocation Quota Reached: too many allocations for this username.
    case quotaReached(server: String)
    /// 508 Insufficient Capacity: the server has no relay address, permission or channel to spare.
    case insufficientCapacity(server: String)
    /// Any other error response (the server's reason phrase is not kept: it is not ours to print).
    case serverError(server: String, code: Int)
    /// A request (named by method, e.g. "Allocate") got no response in time.
    case timeout(server: String, request: String)
    /// A response we could not use (a success without XOR-RELAYED-ADDRESS, a 401 without REALM/NONCE, ...).
    case malformedResponse(server: String)
    /// Stream transports: the byte stream held something that is neither STUN nor ChannelData.
    case malformedStream(server: String)
    /// Stale-nonce (438) answers kept coming after fresh nonces.
    case staleNonceLoop(server: String)
    /// The channel numbers (0x4000–0x4FFF) are all in use.
    case noChannelsLeft(server: String)

    /// The error for an error response's code.
    static func forCode(_ code: Int, server: String) -> TURNError {
        switch code {
        case 401: .unauthorized(server: server)
        case 403: .forbidden(server: server)
        case 437: .allocationMismatch(server: server)
        case 441: .wrongCredentials(server: server)
        case 442: .unsupportedTransport(server: server)
        case 486: .quotaReached(server: server)
        case 508: .insufficientCapacity(server: server)
        default: .serverError(server: server, code: code)
        }
    }

    public var server: String {
        switch self {
        case .unauthorized(let s), .wrongCredentials(let s), .forbidden(let s), .allocationMismatch(let s),
            .unsupportedTransport(let s), .quotaReached(let s), .insufficientCapacity(let s),
            .serverError(let s, _), .timeout(let s, _), .malformedResponse(let s), .malformedStream(let s),
            .staleNonceLoop(let s), .noChannelsLeft(let s):
            s
        }
    }

    public var description: String {
        switch self {
        case .unauthorized(let s): "TURN server \(s) rejected the credentials (401)"
        case .wrongCredentials(let s): "TURN server \(s): wrong credentials for the allocation (441)"
        case .forbidden(let s): "TURN server \(s) forbade the request (403)"
        case .allocationMismatch(let s): "TURN server \(s): allocation mismatch (437)"
        case .unsupportedTransport(let s): "TURN server \(s) does not relay UDP (442)"
        case .quotaReached(let s): "TURN server \(s): allocation quota reached (486)"
        case .insufficientCapacity(let s): "TURN server \(s): insufficient capacity (508)"
        case .serverError(let s, let code): "TURN server \(s) answered error \(code)"
        case .timeout(let s, let request): "TURN server \(s) did not answer \(request)"
        case .malformedResponse(let s): "TURN server \(s) sent a malformed response"
        case .malformedStream(let s): "TURN server \(s) sent bytes that are not STUN or ChannelData"
        case .staleNonceLoop(let s): "TURN server \(s) kept answering 438 Stale Nonce"
        case .noChannelsLeft(let s): "TURN server \(s): no channel numbers left"
        }
    }
}
