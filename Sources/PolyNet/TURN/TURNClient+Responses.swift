// Matching responses to requests: integrity, the 401 challenge, 438 Stale Nonce, and error codes.
import PolyCore

extension TURNClient {
    /// Stale-nonce answers followed per request before giving up.
    static let maxStaleNonceRetries = 3

    mutating func handleResponse(_ message: STUNMessage, bytes: [UInt8], at now: Instant) {
        guard let transaction = transactions[message.transactionID], transaction.method == message.method else {
            return  // not ours, or a late answer to a retransmission already answered
        }
        // RFC 8489 §9.2.5: a response failing MESSAGE-INTEGRITY is discarded as if never received (UDP
        // retransmits; a stream times out). A success to a credentialed request must carry it: otherwise
        // anyone who saw the transaction id could forge, say, the relayed address.
        if message.hasIntegrity {
            guard let key, message.verifyIntegrity(of: bytes, key: key) else { return }
        } else if transaction.authenticated, message.messageClass == .successResponse {
            return
        }
        transactions[message.transactionID] = nil
        if message.messageClass == .successResponse {
            handleSuccess(transaction, message, at: now)
        } else {
            handleError(transaction, message, at: now)
        }
    }

    private mutating func handleError(_ transaction: TURNTransaction, _ message: STUNMessage, at now: Instant) {
        guard let code = message.errorCode?.code else {
            failRequest(transaction, .malformedResponse(server: server), at: now)
            return
        }
        let challengeOrStale = code == 438 || (code == 401 && !transaction.authenticated)
        if !challengeOrStale, transaction.purpose == .deallocate || transaction.purpose == .clearStale {
            // These end the same way whatever the code: closed, or on to the fresh Allocate.
            failRequest(transaction, .forCode(code, server: server), at: now)
            return
        }
        switch code {
        case 401 where !transaction.authenticated:
            // The challenge (RFC 8489 §9.2.3): learn realm and nonce, then ask again with credentials.
            guard let realm = message.realm, let nonce = message.nonce else {
                fail(.malformedResponse(server: server))
                return
            }
            learn(realm: realm, nonce: nonce)
            resend(transaction, staleNonceRetries: transaction.staleNonceRetries, at: now)
        case 438:
            guard let nonce = message.nonce, let realm = message.realm ?? self.realm else {
                fail(.malformedResponse(server: server))
                return
            }
            guard transaction.staleNonceRetries < Self.maxStaleNonceRetries else {
                fail(.staleNonceLoop(server: server))
                return
            }
            learn(realm: realm, nonce: nonce)
            resend(transaction, staleNonceRetries: transaction.staleNonceRetries + 1, at: now)
        case 401, 441:
            // Wrong credentials concern every request, not just this one.
            fail(.forCode(code, server: server))
        case 437:
            allocationMismatch(transaction, at: now)
        default:
            failRequest(transaction, .forCode(code, server: server), at: now)
        }
    }

    /// Takes the server's realm and nonce, deriving the key again only when the realm changed.
    private mutating func learn(realm: String, nonce: String) {
        if realm != self.realm || key == nil {
            key = LongTermCredential.key(
                username: configuration.username, realm: realm, password: configuration.password)
        }
        self.realm = realm
        self.nonce = nonce
    }

    /// A request failed for good: the allocation's requests end it, a peer's requests only that peer.
    mutating func failRequest(_ transaction: TURNTransaction, _ error: TURNError, at now: Instant) {
        switch transaction.purpose {
        case .allocate, .refresh:
            fail(error)
        case .deallocate:
            close()
        case .clearStale:
            sendAllocate(at: now)
        case .createPermission(let ip):
            permissionFailed(ip, error)
        case .channelBind(let peer, _):
            channelBindFailed(peer, error)
        }
    }

    private mutating func handleSuccess(_ transaction: TURNTransaction, _ message: STUNMessage, at now: Instant) {
        switch transaction.purpose {
        case .allocate:
            allocated(message, at: now)
        case .refresh:
            refreshed(message, at: now)
        case .deallocate:
            close()
        case .clearStale:
            sendAllocate(at: now)
        case .createPermission(let ip):
            permissionInstalled(ip, at: now)
        case .channelBind(let peer, let number):
            channelInstalled(peer, number: number, at: now)
        }
    }
}
