// Fuzzes the TURN client's inbound path (UDP datagrams and the stream deframer, in the allocating and
// the allocated state), ChannelData parsing and the deframer itself: never trap, never buffer beyond the
// bound, relay data only from permitted peers, re-encode accepted ChannelData exactly.
//
// Input: byte 0 is a selector, the rest the payload.
//   bits 0–1: target (0 allocating UDP client, 1 allocated UDP client, 2 allocated stream client, 3 parsers)
//   bit 2: overwrite the payload's transaction id with the client's outstanding request's
//   bit 3: decode the payload as STUN and re-sign it with the long-term key (so responses pass integrity)
//   bits 4–7: stream read size − 1 (the payload arrives in reads of this size)
import PolyCore
import PolyNet

let server = TransportAddress("192.0.2.10:3478")!
let peer = TransportAddress("203.0.113.99:50000")!
let otherPeer = TransportAddress("203.0.113.42:6000")!
let username = "1700000000:fuzz"
let password = "cGFzc3dvcmQ="
let realm = "example.org"
let key = LongTermCredential.key(username: username, realm: realm, password: password)

/// A minimal server answer to `request`: the 401 challenge, or a signed success.
func answer(_ bytes: [UInt8]) -> [UInt8]? {
    guard let request = try? STUNMessage(decoding: bytes), request.messageClass == .request else { return nil }
    if request.username == nil {
        return STUNMessage(
            method: request.method, messageClass: .errorResponse, transactionID: request.transactionID,
            attributes: [.errorCode(code: 401, reason: "Unauthorized"), .realm(realm), .nonce("n")]
        ).encoded()
    }
    var attributes: [STUNAttribute] = []
    if request.method == .allocate {
        attributes = [.xorRelayedAddress(TransportAddress("198.51.100.7:49152")!), .lifetime(600)]
    }
    return STUNMessage(
        method: request.method, messageClass: .successResponse, transactionID: request.transactionID,
        attributes: attributes
    ).encoded(integrityKey: key)
}

/// Runs `input` through the client, answering every request, until it is quiet; returns the last request's id.
@discardableResult
func exchange(_ client: inout TURNClient, _ input: TURNInput, answered: Bool = true) -> [UInt8]? {
    client.handle(input, at: .zero)
    var lastRequest: [UInt8]?
    var pending: [[UInt8]] = []
    repeat {
        while let output = client.pollOutput(at: .zero) {
            if case .transmit(let bytes) = output, STUNMessage.looksLikeSTUN(bytes) {
                lastRequest = Array(bytes[8..<20])
                if answered { pending.append(bytes) }
            }
        }
        if let next = pending.first {
            pending.removeFirst()
            if let reply = answer(next) { client.handle(.received(reply), at: .zero) }
        }
    } while !pending.isEmpty
    return lastRequest
}

func makeClient(_ transport: TURNTransport) -> TURNClient {
    TURNClient(
        configuration: TURNClientConfiguration(
            server: server, transport: transport, username: username, password: password, randomSeed: 1))
}

/// A client whose credentialed Allocate is outstanding, and that request's transaction id.
func allocating() -> (TURNClient, [UInt8]) {
    var client = makeClient(.udp)
    client.handle(.start, at: .zero)
    var id: [UInt8] = []
    while let output = client.pollOutput(at: .zero) {
        guard case .transmit(let bytes) = output else { continue }
        id = Array(bytes[8..<20])
        // Answer only the challenge: the credentialed retry stays outstanding.
        if let request = try? STUNMessage(decoding: bytes), request.username == nil, let reply = answer(bytes) {
            client.handle(.received(reply), at: .zero)
        }
    }
    return (client, id)
}

/// An allocated client with a permission for `peer`, a bound channel to `peer` and a ChannelBind to
/// `otherPeer` outstanding (its id returned).
func allocated(_ transport: TURNTransport) -> (TURNClient, [UInt8]) {
    var client = makeClient(transport)
    exchange(&client, .start)
    exchange(&client, .permit(peer.ip))
    exchange(&client, .bindChannel(peer))
    let id = exchange(&client, .bindChannel(otherPeer), answered: false) ?? []
    return (client, id)
}

/// The payload with `id` as its transaction id and/or re-signed, as the selector asks.
func prepare(_ payload: [UInt8], selector: UInt8, id: [UInt8]) -> [UInt8] {
    var bytes = payload
    if selector & 0x04 != 0, bytes.count >= 20, id.count == 12 { bytes.replaceSubrange(8..<20, with: id) }
    if selector & 0x08 != 0, let message = try? STUNMessage(decoding: bytes) {
        bytes = message.encoded(integrityKey: key, fingerprint: message.hasFingerprint)
    }
    return bytes
}

/// Drains outputs and fires the client's timers a few times; checks that data comes only from peers the
/// client asked for (a permission for `peer`'s IP, channels to `peer` and `otherPeer`).
func settle(_ client: inout TURNClient) {
    var now = Instant.zero
    for _ in 0..<4 {
        while let output = client.pollOutput(at: now) {
            if case .data(_, let from) = output, from.ip != peer.ip, from.ip != otherPeer.ip {
                fatalError("data from a peer without a permission or channel: \(from)")
            }
        }
        guard let deadline = client.nextDeadline() else { return }
        now = max(now, deadline)
    }
}

func fuzzParsers(_ payload: [UInt8], readSize: Int) {
    if let message = try? ChannelData(parsing: payload) {
        let again = message.encoded(padded: false)
        guard payload.starts(with: again) else { fatalError("ChannelData re-encoding differs") }
    }
    var deframer = TURNStreamDeframer(maxFrameLength: 64)
    var start = 0
    while start < payload.count {
        let end = min(start + readSize, payload.count)
        deframer.append(payload[start..<end])
        start = end
        do {
            while let frame = try deframer.nextFrame() {
                guard frame.count <= 64 else { fatalError("a frame beyond the bound") }
                if ChannelData.startsChannelData(frame[0]) {
                    _ = try? ChannelData(parsing: frame)
                } else {
                    _ = try? STUNMessage(decoding: frame)
                }
            }
        } catch {
            return
        }
        guard deframer.bufferedCount <= 64 + readSize else { fatalError("deframer buffered beyond its bound") }
    }
}

// The clients are values: set up once, copied for every input.
let allocatingUDP = allocating()
let allocatedUDP = allocated(.udp)
let allocatedStream = allocated(.stream)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTURN(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let selector = data[0]
    let payload = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let readSize = Int(selector >> 4) + 1
    switch selector & 0x03 {
    case 0:
        var (client, id) = allocatingUDP
        client.handle(.received(prepare(payload, selector: selector, id: id)), at: .milliseconds(1))
        settle(&client)
    case 1:
        var (client, id) = allocatedUDP
        client.handle(.received(prepare(payload, selector: selector, id: id)), at: .milliseconds(1))
        client.handle(.send([1, 2, 3], to: peer), at: .milliseconds(1))
        settle(&client)
    case 2:
        var (client, id) = allocatedStream
        let bytes = prepare(payload, selector: selector, id: id)
        var start = 0
        while start < bytes.count {
            let end = min(start + readSize, bytes.count)
            client.handle(.received(Array(bytes[start..<end])), at: .milliseconds(1))
            start = end
        }
        settle(&client)
    default:
        fuzzParsers(payload, readSize: readSize)
    }
    return 0
}
