// The sans-IO TURN client (RFC 8656): one allocation on one server, its permissions and channels.
import PolyCore

/// A TURN client for one allocation: long-term credentials, refreshes, permissions, channels, and the
/// relaying of data as Send/Data indications or ChannelData.
///
/// Drive it like every core: `handle(_:at:)` with `.start` and every byte from the server, drain
/// `pollOutput(at:)` until nil (it also fires due timers: retransmissions, refreshes), and call again at
/// `nextDeadline()`. It owns no socket: `.transmit` bytes go to `configuration.server` over the transport the
/// configuration names. No description or mirror of it prints the credentials, the key or the nonce.
public struct TURNClient: Sendable, CustomStringConvertible, CustomReflectable {
    public let configuration: TURNClientConfiguration
    public internal(set) var state: TURNClientState = .idle
    /// The relayed transport address while allocated (the relay candidate's address).
    public internal(set) var relayedAddress: TransportAddress?
    /// XOR-MAPPED-ADDRESS of the Allocate response: the server-reflexive address, if the server sent it.
    public internal(set) var mappedAddress: TransportAddress?

    var random: SeededRandom
    var outputs = OutputQueue<TURNOutput>()
    var transactions: [STUNTransactionID: TURNTransaction] = [:]
    /// Long-term credential state, learnt from the first 401 (and 438s).
    var realm: String?
    var nonce: String?
    var key: [UInt8]?
    var refreshAt: Instant?
    /// The one recovery from 437 Allocation Mismatch was used.
    var recoveredMismatch = false
    var permissions: [IPAddress: TURNPermission] = [:]
    var channels: [TransportAddress: TURNChannel] = [:]
    var peersByChannel: [UInt16: TransportAddress] = [:]
    var nextChannel = ChannelData.validChannels.lowerBound
    var deframer: TURNStreamDeframer

    public init(configuration: TURNClientConfiguration) {
        self.configuration = configuration
        random = SeededRandom(seed: configuration.randomSeed)
        deframer = TURNStreamDeframer(maxFrameLength: configuration.maxStreamFrameLength)
    }

    var isStopped: Bool {
        switch state {
        case .closed, .failed: true
        default: false
        }
    }

    var isAllocated: Bool {
        if case .allocated = state { true } else { false }
    }

    // MARK: Driving

    public mutating func handle(_ input: TURNInput, at now: Instant) {
        guard !isStopped else { return }
        switch input {
        case .start:
            guard state == .idle else { return }
            state = .allocating
            sendAllocate(at: now)
        case .received(let bytes):
            receive(bytes, at: now)
        case .send(let bytes, let peer):
            send(bytes, to: peer, at: now)
        case .permit(let ip):
            permit(ip, at: now)
        case .bindChannel(let peer):
            bindChannel(peer, at: now)
        case .deallocate:
            deallocate(at: now)
        }
    }

    /// The next output, after firing every timer due at `now`; nil when there is nothing to do.
    public mutating func pollOutput(at now: Instant) -> TURNOutput? {
        if outputs.isEmpty, !isStopped { advance(to: now) }
        return outputs.next()
    }

    /// When the client next needs `pollOutput(at:)` even without input; nil once closed or failed.
    public func nextDeadline() -> Instant? {
        guard !isStopped else { return nil }
        var earliest: Instant?
        for transaction in transactions.values { earliest.formEarliest(transaction.deadline) }
        earliest.formEarliest(refreshAt)
        for permission in permissions.values { earliest.formEarliest(permission.refreshAt) }
        for channel in channels.values { earliest.formEarliest(channel.refreshAt) }
        return earliest
    }

    // MARK: Timers

    mutating func advance(to now: Instant) {
        retransmit(at: now)
        guard isAllocated else { return }
        if let due = refreshAt, due <= now {
            refreshAt = nil
            sendRefresh(at: now)
        }
        for (ip, permission) in permissions where permission.refreshAt.map({ $0 <= now }) == true {
            permissions[ip]?.refreshAt = nil
            requestPermission(ip, at: now)
        }
        for (peer, channel) in channels where channel.refreshAt.map({ $0 <= now }) == true {
            channels[peer]?.refreshAt = nil
            requestChannel(peer, at: now)
        }
    }

    // MARK: Shared helpers

    mutating func emit(_ output: TURNOutput) { outputs.append(output) }

    mutating func fail(_ error: TURNError) {
        guard !isStopped else { return }
        transactions.removeAll()
        refreshAt = nil
        permissions.removeAll()
        channels.removeAll()
        peersByChannel.removeAll()
        relayedAddress = nil
        state = .failed(error)
        emit(.failed(error))
    }

    mutating func close() {
        transactions.removeAll()
        refreshAt = nil
        permissions.removeAll()
        channels.removeAll()
        peersByChannel.removeAll()
        relayedAddress = nil
        state = .closed
        emit(.closed)
    }

    var server: String { configuration.serverName }

    public var description: String { "TURNClient(server: \(server), state: \(state))" }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
