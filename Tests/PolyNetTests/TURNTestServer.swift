// A small fake TURN server for the TURN client's tests: it decodes the client's real requests and builds
// real STUN responses, signed with the long-term key, so the client's integrity checks are exercised.
import PolyCore
import Testing

@testable import PolyNet

enum TURNFixtures {
    static let server = TransportAddress("192.0.2.10:3478")!
    static let serverName = "turn.example.org:3478"
    static let username = "1700000000:call-5f9ec645"
    static let password = "c2VjcmV0LWNyZWRlbnRpYWw="
    static let relayed = TransportAddress("198.51.100.7:49152")!
    static let mapped = TransportAddress("203.0.113.5:40000")!
    static let peer = TransportAddress("203.0.113.99:50000")!
    static let otherPeer = TransportAddress("203.0.113.42:6000")!

    static func configuration(transport: TURNTransport = .udp, password: String = password) -> TURNClientConfiguration {
        TURNClientConfiguration(
            server: server, serverName: serverName, transport: transport, username: username, password: password,
            randomSeed: 7)
    }

    /// A client that sent its first Allocate (drained: the outputs are returned).
    static func started(transport: TURNTransport = .udp) -> (TURNClient, [TURNOutput]) {
        var client = TURNClient(configuration: configuration(transport: transport))
        client.handle(.start, at: .zero)
        let outputs = client.drain(at: .zero)
        return (client, outputs)
    }
}

extension TURNClient {
    /// Every output due at `now`.
    mutating func drain(at now: Instant) -> [TURNOutput] {
        var outputs: [TURNOutput] = []
        while let output = pollOutput(at: now) { outputs.append(output) }
        return outputs
    }
}

extension [TURNOutput] {
    /// The bytes of every `.transmit`, in order.
    var transmitted: [[UInt8]] { compactMap { if case .transmit(let b) = $0 { b } else { nil } } }
    /// Every output but `.transmit`.
    var events: [TURNOutput] { filter { if case .transmit = $0 { false } else { true } } }
}

struct FakeTURNServer {
    var realm = "example.org"
    var nonce = "nonce-1"
    var username = TURNFixtures.username
    var password = TURNFixtures.password
    var lifetime: UInt32 = 600
    var relayed = TURNFixtures.relayed
    var mapped = TURNFixtures.mapped
    /// Every request received, decoded.
    var requests: [STUNMessage] = []

    var key: [UInt8] { LongTermCredential.key(username: username, realm: realm, password: password) }

    /// Decodes bytes the client transmitted as a request (fails the test otherwise).
    mutating func request(_ bytes: [UInt8]) throws -> STUNMessage {
        let message = try STUNMessage(decoding: bytes)
        #expect(message.messageClass == .request)
        requests.append(message)
        return message
    }

    /// True when the request carries this server's credentials and nonce and its MESSAGE-INTEGRITY checks.
    func isAuthenticated(_ message: STUNMessage, bytes: [UInt8]) -> Bool {
        message.username == username && message.realm == realm && message.nonce == nonce
            && message.verifyIntegrity(of: bytes, key: key)
    }

    func challenge(_ request: STUNMessage) -> [UInt8] {
        response(
            request, .errorResponse, [.errorCode(code: 401, reason: "Unauthorized"), .realm(realm), .nonce(nonce)]
        )
        .encoded(fingerprint: true)
    }

    func error(_ request: STUNMessage, _ code: Int, extra: [STUNAttribute] = [], signed: Bool = false) -> [UInt8] {
        response(request, .errorResponse, [.errorCode(code: code, reason: "Error")] + extra)
            .encoded(integrityKey: signed ? key : nil, fingerprint: true)
    }

    /// A signed success response with what the method's success carries.
    func success(_ request: STUNMessage, key: [UInt8]? = nil, lifetime: UInt32? = nil) -> [UInt8] {
        var attributes: [STUNAttribute] = []
        if request.method == .allocate {
            attributes = [.xorRelayedAddress(relayed), .xorMappedAddress(mapped), .lifetime(lifetime ?? self.lifetime)]
        } else if request.method == .refresh {
            // Like real servers: the lifetime asked for, capped at the server's own.
            attributes = [.lifetime(lifetime ?? min(request.lifetime ?? self.lifetime, self.lifetime))]
        }
        return response(request, .successResponse, attributes).encoded(integrityKey: key ?? self.key, fingerprint: true)
    }

    /// Answers like a well-behaved server: 401 without credentials, 438 for an old nonce, success otherwise.
    mutating func answer(_ bytes: [UInt8]) throws -> [UInt8]? {
        let message = try request(bytes)
        guard message.messageClass == .request else { return nil }
        guard message.username != nil else { return challenge(message) }
        guard message.nonce == nonce else { return error(message, 438, extra: [.realm(realm), .nonce(nonce)]) }
        guard isAuthenticated(message, bytes: bytes) else { return error(message, 401) }
        return success(message)
    }

    /// A Data indication from `peer`.
    func dataIndication(_ data: [UInt8], from peer: TransportAddress) -> [UInt8] {
        var generator = SeededRandom(seed: 99)
        return STUNMessage(
            method: .data, messageClass: .indication, transactionID: .random(using: &generator),
            attributes: [.xorPeerAddress(peer), .data(data)]
        ).encoded(fingerprint: false)
    }

    private func response(_ request: STUNMessage, _ messageClass: STUNClass, _ attributes: [STUNAttribute])
        -> STUNMessage
    {
        STUNMessage(
            method: request.method, messageClass: messageClass, transactionID: request.transactionID,
            attributes: attributes)
    }
}

/// Client and fake server wired together: every transmit is answered at once (zero latency).
struct TURNTestLink {
    var client: TURNClient
    var server = FakeTURNServer()
    var now = Instant.zero
    /// Events the client emitted, with when.
    var events: [(at: Instant, output: TURNOutput)] = []
    /// Requests the client sent, with when.
    var sent: [(at: Instant, message: STUNMessage)] = []
    /// The bytes of the last request the client sent.
    var lastRequestBytes: [UInt8]?
    /// Non-request bytes the client sent (indications, ChannelData).
    var other: [[UInt8]] = []

    init(transport: TURNTransport = .udp) {
        client = TURNClient(configuration: TURNFixtures.configuration(transport: transport))
    }

    /// Feeds `input` and then exchanges messages with the server until both are quiet.
    mutating func handle(_ input: TURNInput) throws {
        client.handle(input, at: now)
        try pump()
    }

    mutating func pump() throws {
        while true {
            let outputs = client.drain(at: now)
            if outputs.isEmpty { return }
            for output in outputs {
                guard case .transmit(let bytes) = output else {
                    events.append((now, output))
                    continue
                }
                guard let first = bytes.first, !ChannelData.startsChannelData(first),
                    let message = try? STUNMessage(decoding: bytes), message.messageClass == .request
                else {
                    other.append(bytes)
                    continue
                }
                sent.append((now, message))
                lastRequestBytes = bytes
                if let reply = try server.answer(bytes) { client.handle(.received(reply), at: now) }
            }
        }
    }

    /// Advances virtual time to `end`, firing the client's deadlines on the way.
    mutating func run(until end: Instant) throws {
        var steps = 0
        while let deadline = client.nextDeadline(), deadline <= end {
            steps += 1
            try #require(steps < 10_000, "a deadline that never clears")
            now = max(now, deadline)
            try pump()
        }
        now = end
        try pump()
    }

    /// A link whose client is allocated (after the 401 challenge).
    static func allocated(transport: TURNTransport = .udp) throws -> TURNTestLink {
        var link = TURNTestLink(transport: transport)
        try link.handle(.start)
        return link
    }

    func requests(_ method: STUNMethod) -> [(at: Instant, message: STUNMessage)] {
        sent.filter { $0.message.method == method }
    }
}
