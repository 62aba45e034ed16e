import Foundation
import PolyCore
import Testing

@testable import PolyNet

/// Handshakes under packet loss from the first datagram on, in virtual time (see `DTLSPair.run`).
/// Short retransmission timeouts keep the real time the pair must also let pass small.
@Suite struct DTLSLossTests {
    static let initialTimeout = Duration.milliseconds(20)
    static let maximumTimeout = Duration.milliseconds(80)

    private static func pair() throws -> DTLSPair {
        try DTLSPair(initialRetransmitTimeout: initialTimeout, maximumRetransmitTimeout: maximumTimeout)
    }

    /// A description of how the handshake ended, or nil if both sides connected with the same keys.
    private static func failure(of pair: DTLSPair) -> String? {
        guard let client = pair.clientKeys, let server = pair.serverKeys else {
            return "client \(pair.clientEvents), server \(pair.serverEvents)"
        }
        return client.keyingMaterial == server.keyingMaterial ? nil : "keys differ"
    }

    @Test(arguments: [0.05, 0.10, 0.20])
    func seededRandomLossNeverFailsTheHandshake(loss: Double) throws {
        var failures: [String] = []
        for seed in 0..<200 {
            var random = SeededRandom(seed: UInt64(seed) &* 7_919 &+ UInt64(loss * 1_000))
            var pair = try Self.pair()
            // A one-way delay of 0–9 ms staggers the two sides' deadlines as a real path does.
            pair.run(until: .seconds(60), delay: .milliseconds(seed % 10)) { _, _ in random.unit() < loss }
            if let failure = Self.failure(of: pair) { failures.append("seed \(seed): \(failure)") }
        }
        #expect(failures.isEmpty, "\(failures.count)/200 handshakes failed at \(loss) loss: \(failures.prefix(3))")
    }

    /// Every single datagram of either side is lost once, then twice in a row (its first retransmission too).
    @Test(arguments: [1, 2])
    func losingAnyOneFlightIsRecovered(times: Int) throws {
        var failures: [String] = []
        for fromClient in [true, false] {
            for index in 0..<4 {
                var pair = try Self.pair()
                pair.run(until: .seconds(60)) { client, sent in
                    client == fromClient && sent >= index && sent < index + times
                }
                if let failure = Self.failure(of: pair) {
                    failures.append("\(fromClient ? "client" : "server") datagram \(index): \(failure)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    /// The field failure at real scale (400 ms timeouts, 1 ms transit): the server's first flight is lost, so
    /// the client's retransmitted ClientHello reaches the server 1–2 ms before the server's own deadline.
    @Test func lostFlightWithDefaultTimeoutsAndSmallDelayIsRecovered() throws {
        var pair = try DTLSPair()
        pair.run(until: .seconds(60), delay: .milliseconds(1)) { fromClient, sent in !fromClient && sent == 0 }
        #expect(Self.failure(of: pair) == nil)
        #expect(pair.now > .zero + .milliseconds(400) && pair.now < .zero + .milliseconds(450))
    }

    /// With every datagram lost the client gives up with `.timedOut` exactly when its schedule runs out:
    /// 20 ms, then 40, 80 and 80 ms… for 8 retransmissions, so 20+40+7×80 = 620 ms after the first flight.
    @Test func totalLossTimesOutAfterTheDocumentedDeadline() throws {
        var pair = try Self.pair()
        pair.run(until: .seconds(60)) { _, _ in true }
        #expect(pair.clientEvents == [.failed(.timedOut)])
        #expect(pair.sentByClient == 1 + 8)
        #expect(pair.now == .zero + .milliseconds(620))
        #expect(pair.client.configuration.handshakeTimeout == .milliseconds(620))
        let defaults = DTLSEndpoint.Configuration(
            role: .client, certificate: try DTLSCertificate.shared(), remoteFingerprints: [])
        #expect(defaults.handshakeTimeout == .seconds(36))
    }
}

extension DTLSLossTests {
    /// A peer's datagram arriving shortly before our retransmission deadline (here a duplicate ClientHello
    /// reaching the server 15 ms into its 20 ms timeout, when OpenSSL's wall-clock timer already counts as
    /// expired) must not break the handshake: the server retransmits at its deadline and the call connects.
    @Test func datagramJustBeforeTheDeadlineDoesNotFailTheHandshake() throws {
        var pair = try Self.pair()
        pair.client.start(at: .zero)
        var hello: [[UInt8]] = []
        while case .transmit(let bytes)? = pair.client.pollOutput(at: .zero) { hello.append(bytes) }
        for bytes in hello { try pair.server.handle(.datagram(bytes), at: .zero) }
        while pair.server.pollOutput(at: .zero) != nil {}  // flight 4 is lost
        usleep(15_000)
        let late = Instant.zero + .milliseconds(15)
        for bytes in hello { try pair.server.handle(.datagram(bytes), at: late) }
        var events: [DTLSEndpoint.Event] = []
        while let output = pair.server.pollOutput(at: late) {
            if case .event(let event) = output { events.append(event) }
        }
        #expect(events.isEmpty)
        #expect(pair.server.state == .handshaking)
        #expect(pair.server.nextDeadline() == Instant.zero + Self.initialTimeout)
        pair.now = late
        pair.run(until: .seconds(60))
        #expect(Self.failure(of: pair) == nil)
    }
}
