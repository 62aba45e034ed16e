// Sending TURN requests with long-term credentials, and their retransmission (UDP) or timeout (streams).
import PolyCore

extension TURNClient {
    /// Sends a request now and tracks it. Credentials are added once the server's realm and nonce are known.
    mutating func startRequest(
        _ method: STUNMethod, _ attributes: [STUNAttribute], purpose: TURNTransaction.Purpose,
        staleNonceRetries: Int = 0, at now: Instant
    ) {
        let id = STUNTransactionID.random(using: &random)
        var message = STUNMessage(method: method, messageClass: .request, transactionID: id, attributes: attributes)
        let bytes: [UInt8]
        let authenticated: Bool
        if let key, let realm, let nonce {
            message.attributes += [.username(configuration.username), .realm(realm), .nonce(nonce)]
            bytes = message.encoded(integrityKey: key, fingerprint: configuration.fingerprint)
            authenticated = true
        } else {
            bytes = message.encoded(fingerprint: configuration.fingerprint)
            authenticated = false
        }
        emit(.transmit(bytes))
        let udp = configuration.transport == .udp
        transactions[id] = TURNTransaction(
            purpose: purpose, method: method, attributes: attributes, bytes: bytes, authenticated: authenticated,
            staleNonceRetries: staleNonceRetries, rto: configuration.initialRTO,
            transmissionsLeft: udp ? configuration.maxTransmissions - 1 : 0,
            deadline: now + (udp ? configuration.initialRTO : configuration.streamTransactionTimeout))
    }

    /// Sends `transaction`'s request again as a new transaction (after a 401 challenge or a 438 new nonce).
    mutating func resend(_ transaction: TURNTransaction, staleNonceRetries: Int, at now: Instant) {
        startRequest(
            transaction.method, transaction.attributes, purpose: transaction.purpose,
            staleNonceRetries: staleNonceRetries, at: now)
    }

    /// UDP: retransmits due requests (RTO doubling, RFC 8489 §6.2.1); any transport: times out the overdue.
    mutating func retransmit(at now: Instant) {
        for (id, transaction) in transactions where transaction.deadline <= now {
            guard transaction.transmissionsLeft > 0 else {
                transactions[id] = nil
                timedOut(transaction, at: now)
                if isStopped { return }
                continue
            }
            var next = transaction
            emit(.transmit(next.bytes))
            next.transmissionsLeft -= 1
            if next.transmissionsLeft > 0 {
                next.rto = next.rto * 2
                next.deadline = now + next.rto
            } else {
                // After the last transmission wait Rm × the initial RTO (39.5 s in all with the defaults).
                next.deadline = now + configuration.initialRTO * configuration.finalWaitFactor
            }
            transactions[id] = next
        }
    }

    private mutating func timedOut(_ transaction: TURNTransaction, at now: Instant) {
        failRequest(transaction, .timeout(server: server, request: transaction.method.name), at: now)
    }

    // MARK: The requests

    mutating func sendAllocate(at now: Instant) {
        startRequest(
            .allocate, [.requestedTransport(17), .lifetime(lifetimeSeconds(configuration.requestedLifetime))],
            purpose: .allocate, at: now)
    }

    mutating func sendRefresh(at now: Instant) {
        startRequest(
            .refresh, [.lifetime(lifetimeSeconds(configuration.requestedLifetime))], purpose: .refresh, at: now)
    }

    mutating func requestPermission(_ ip: IPAddress, at now: Instant) {
        permissions[ip, default: TURNPermission()].requesting = true
        // RFC 8656 §9.1: the port of XOR-PEER-ADDRESS is ignored in CreatePermission.
        startRequest(
            .createPermission, [.xorPeerAddress(TransportAddress(ip: ip, port: 0))],
            purpose: .createPermission(ip), at: now)
    }

    mutating func requestChannel(_ peer: TransportAddress, at now: Instant) {
        guard let number = channels[peer]?.number else { return }
        channels[peer]?.requesting = true
        startRequest(
            .channelBind, [.channelNumber(number), .xorPeerAddress(peer)],
            purpose: .channelBind(peer, channel: number), at: now)
    }

    private func lifetimeSeconds(_ duration: Duration) -> UInt32 {
        UInt32(clamping: max(duration.totalNanoseconds / 1_000_000_000, 0))
    }
}
