import Foundation
import PolyCore
import Testing

@testable import PolyNet

/// A DTLS endpoint on a real UDP socket, driven by an event loop: the shape the call layer will have.
/// Confined to the loop thread after `start` (hence @unchecked Sendable).
private final class UDPDTLSPeer: @unchecked Sendable {
    let loop: EventLoop
    let socket: UDPSocket
    let endpoint: DTLSEndpoint
    var remote: TransportAddress?
    var timer: EventLoop.Timer?
    let events = Locked<[DTLSEndpoint.Event]>([])
    let nonDTLS = Locked(0)

    init(loop: EventLoop, address: String, configuration: DTLSEndpoint.Configuration) throws {
        self.loop = loop
        socket = try UDPSocket(bindingTo: TransportAddress(address)!)
        endpoint = try DTLSEndpoint(configuration)
    }

    func start(remote: TransportAddress) {
        loop.execute { [self] in
            self.remote = remote
            loop.register(socket) { [self] datagram, _ in received(datagram) }
            endpoint.start(at: .now())
            drain()
        }
    }

    private func received(_ datagram: UnsafeRawBufferPointer) {
        guard DatagramKind.classify(datagram) == .dtls else {
            nonDTLS.with { $0 += 1 }
            return
        }
        try? endpoint.handle(.datagram(Array(datagram)), at: .now())
        drain()
    }

    private func drain() {
        let now = Instant.now()
        while let output = endpoint.pollOutput(at: now) {
            switch output {
            case .transmit(let bytes): _ = try? socket.send(bytes, to: remote!)
            case .event(let event): events.with { $0.append(event) }
            }
        }
        if let timer { loop.cancel(timer) }
        timer = endpoint.nextDeadline().map { deadline in
            loop.schedule(at: deadline) { [self] in
                try? endpoint.handle(.timeout, at: .now())
                drain()
            }
        }
    }

    var keys: DTLSSRTPKeys? {
        for case .connected(let keys) in events.current { return keys }
        return nil
    }
}

@Suite struct DTLSOverUDPTests {
    @Test func handshakeCompletesOverLoopbackSocketsOnOneLoop() throws {
        let loop = try EventLoop()
        defer { loop.shutdown() }
        let clientCertificate = try DTLSCertificate.generate()
        let serverCertificate = try DTLSCertificate.generate()
        let client = try UDPDTLSPeer(
            loop: loop, address: "127.0.0.2:0",
            configuration: .init(
                role: .client, certificate: clientCertificate, remoteFingerprints: [serverCertificate.fingerprint]))
        let server = try UDPDTLSPeer(
            loop: loop, address: "127.0.0.1:0",
            configuration: .init(
                role: .server, certificate: serverCertificate, remoteFingerprints: [clientCertificate.fingerprint]))
        server.start(remote: client.socket.localAddress)
        // Noise on the shared port (a STUN-looking datagram) is demultiplexed away from DTLS.
        try client.socket.send([0x00, 0x01, 0x00, 0x00], to: server.socket.localAddress)
        client.start(remote: server.socket.localAddress)
        #expect(waitUntil { client.keys != nil && server.keys != nil })
        #expect(client.keys?.keyingMaterial == server.keys?.keyingMaterial)
        #expect(client.keys?.localKeyAndSalt == server.keys?.remoteKeyAndSalt)
        #expect(server.nonDTLS.current == 1)
    }
}
