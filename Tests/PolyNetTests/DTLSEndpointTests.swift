import Foundation
import PolyCore
import Testing

@testable import PolyNet

/// Two endpoints wired back to back in virtual time; `drop` decides which datagrams are lost.
struct DTLSPair {
    let client: DTLSEndpoint
    let server: DTLSEndpoint
    var now = Instant.zero
    var clientEvents: [DTLSEndpoint.Event] = []
    var serverEvents: [DTLSEndpoint.Event] = []
    var sentByClient = 0
    var sentByServer = 0
    var debug = false

    init(
        profiles: [DTLSSRTPProfile] = [.aeadAes128Gcm, .aes128CmSha1_80],
        serverProfiles: [DTLSSRTPProfile]? = nil,
        clientExpects: [DTLSFingerprint]? = nil,
        initialRetransmitTimeout: Duration = .milliseconds(400),
        maximumRetransmitTimeout: Duration = .seconds(6)
    ) throws {
        let clientCertificate = try DTLSCertificate.generate()
        let serverCertificate = try DTLSCertificate.generate()
        client = try DTLSEndpoint(
            .init(
                role: .client, certificate: clientCertificate,
                remoteFingerprints: clientExpects ?? [serverCertificate.fingerprint], srtpProfiles: profiles,
                initialRetransmitTimeout: initialRetransmitTimeout, maximumRetransmitTimeout: maximumRetransmitTimeout))
        server = try DTLSEndpoint(
            .init(
                role: .server, certificate: serverCertificate,
                remoteFingerprints: [clientCertificate.fingerprint], srtpProfiles: serverProfiles ?? profiles,
                initialRetransmitTimeout: initialRetransmitTimeout, maximumRetransmitTimeout: maximumRetransmitTimeout))
    }

    init(client: DTLSEndpoint, server: DTLSEndpoint) {
        self.client = client
        self.server = server
    }

    /// Moves datagrams both ways and fires deadlines until both sides are quiet or the next deadline is past
    /// `limit`. Virtual time; but OpenSSL's own timer runs on the wall clock (see DTLSEndpoint), so each
    /// advance of virtual time also lets as much real time pass. `delay` is the one-way transit time.
    mutating func run(
        until limit: Duration = .seconds(30), delay: Duration = .zero,
        drop: (_ fromClient: Bool, _ index: Int) -> Bool = { _, _ in false }
    ) {
        client.start(at: now)
        server.start(at: now)
        let end = now + limit
        var inFlight: [(arrival: Instant, toServer: Bool, bytes: [UInt8])] = []
        func send(_ bytes: [UInt8], toServer: Bool, at now: Instant) {
            let receiver = toServer ? server : client
            if delay == .zero {
                try? receiver.handle(.datagram(bytes), at: now)
            } else {
                inFlight.append((now + delay, toServer, bytes))
            }
        }
        while true {
            var moved = false
            while let output = client.pollOutput(at: now) {
                moved = true
                switch output {
                case .transmit(let bytes):
                    defer { sentByClient += 1 }
                    if debug { print("\(now) C->S \(bytes.count) first=\(bytes[0]) drop=\(drop(true, sentByClient))") }
                    if !drop(true, sentByClient) { send(bytes, toServer: true, at: now) }
                case .event(let event):
                    if debug { print("\(now) client event \(event)") }
                    clientEvents.append(event)
                }
            }
            while let output = server.pollOutput(at: now) {
                moved = true
                switch output {
                case .transmit(let bytes):
                    defer { sentByServer += 1 }
                    if debug { print("\(now) S->C \(bytes.count) first=\(bytes[0]) drop=\(drop(false, sentByServer))") }
                    if !drop(false, sentByServer) { send(bytes, toServer: false, at: now) }
                case .event(let event):
                    if debug { print("\(now) server event \(event)") }
                    serverEvents.append(event)
                }
            }
            if moved { continue }
            let deadlines = [client.nextDeadline(), server.nextDeadline(), inFlight.first?.arrival].compactMap { $0 }
            guard let next = deadlines.min(), next <= end else { return }
            let advance = max(next, now) - now
            now = max(now, next)
            usleep(UInt32(clamping: max(advance.totalNanoseconds / 1_000, 0)))
            // Datagrams due now are read before the timers due now fire, as a socket read can come first.
            while let first = inFlight.first, first.arrival <= now {
                inFlight.removeFirst()
                try? (first.toServer ? server : client).handle(.datagram(first.bytes), at: now)
            }
            try? client.handle(.timeout, at: now)
            try? server.handle(.timeout, at: now)
        }
    }

    var clientKeys: DTLSSRTPKeys? { Self.keys(in: clientEvents) }
    var serverKeys: DTLSSRTPKeys? { Self.keys(in: serverEvents) }

    static func keys(in events: [DTLSEndpoint.Event]) -> DTLSSRTPKeys? {
        for case .connected(let keys) in events { return keys }
        return nil
    }
}

@Suite struct DTLSEndpointTests {
    @Test(arguments: [DTLSSRTPProfile.aeadAes128Gcm, .aes128CmSha1_80])
    func handshakeDerivesMatchingKeys(profile: DTLSSRTPProfile) throws {
        var pair = try DTLSPair(profiles: [profile])
        pair.run()
        let client = try #require(pair.clientKeys)
        let server = try #require(pair.serverKeys)
        #expect(client.profileID == profile.rawValue && server.profileID == profile.rawValue)
        #expect(client.isClient && !server.isClient)
        #expect(client.keyingMaterial == server.keyingMaterial)
        #expect(client.keyingMaterial.count == 2 * (16 + profile.saltLength))
        #expect(client.localKeyAndSalt == server.remoteKeyAndSalt)
        #expect(client.remoteKeyAndSalt == server.localKeyAndSalt)
        #expect(client.localKeyAndSalt != client.remoteKeyAndSalt)
        #expect(pair.client.state == .connected && pair.server.state == .connected)
        #expect(pair.now == .zero)  // no retransmission was needed
    }

    @Test func serverPreferenceWinsWhenBothProfilesAreOffered() throws {
        var pair = try DTLSPair(
            profiles: [.aes128CmSha1_80, .aeadAes128Gcm], serverProfiles: [.aeadAes128Gcm, .aes128CmSha1_80])
        pair.run()
        let keys = try #require(pair.clientKeys)
        #expect(keys.profileID == 0x0007)
        #expect(pair.serverKeys?.profileID == 0x0007)
    }

    @Test func noCommonProfileFails() throws {
        var pair = try DTLSPair(profiles: [.aes128CmSha1_80], serverProfiles: [.aeadAes128Gcm])
        pair.run()
        #expect(pair.clientKeys == nil && pair.serverKeys == nil)
        #expect(pair.serverEvents == [.failed(.noSRTPProfile)])
        #expect(pair.clientEvents == [.failed(.noSRTPProfile)])
    }

    @Test func fingerprintMismatchIsRefusedAndNothingIsKeyed() throws {
        let stranger = try DTLSCertificate.generate()
        var pair = try DTLSPair(clientExpects: [stranger.fingerprint])
        pair.run()
        #expect(pair.clientEvents == [.failed(.fingerprintMismatch)])
        #expect(pair.clientKeys == nil && pair.serverKeys == nil)
        #expect(pair.client.state == .failed)
    }

    @Test func anyOfSeveralFingerprintAlgorithmsIsAccepted() throws {
        let serverCertificate = try DTLSCertificate.generate()
        let clientCertificate = try DTLSCertificate.generate()
        let sha512 = try #require(serverCertificate.fingerprint(.sha512))
        let wrong256 = DTLSFingerprint(algorithm: .sha256, digest: [UInt8](repeating: 0xAB, count: 32))
        let client = try DTLSEndpoint(
            .init(role: .client, certificate: clientCertificate, remoteFingerprints: [wrong256, sha512]))
        let server = try DTLSEndpoint(
            .init(role: .server, certificate: serverCertificate, remoteFingerprints: [clientCertificate.fingerprint]))
        var pair = DTLSPair(client: client, server: server)
        pair.run()
        #expect(pair.clientKeys != nil && pair.serverKeys != nil)
    }

    @Test func lostFirstFlightIsRetransmittedWhenTheDeadlinePasses() throws {
        var pair = try DTLSPair()
        pair.client.start(at: .zero)
        let deadline = try #require(pair.client.nextDeadline())
        #expect(deadline == .zero + .milliseconds(400))
        pair.run { fromClient, index in fromClient && index == 0 }  // the first ClientHello is lost
        #expect(pair.clientKeys != nil && pair.serverKeys != nil)
        #expect(pair.clientKeys?.keyingMaterial == pair.serverKeys?.keyingMaterial)
        #expect(pair.now >= .zero + .milliseconds(400))
        #expect(pair.now < .zero + .milliseconds(500))
    }

    @Test func lostServerFinalFlightIsRecoveredByTheClientsRetransmission() throws {
        var pair = try DTLSPair()
        // Server flights: 0 = ServerHello…Done, 1 = CCS+Finished. Lose the final one once.
        pair.run { fromClient, index in !fromClient && index == 1 }
        #expect(pair.clientKeys != nil && pair.serverKeys != nil)
        #expect(pair.clientKeys?.keyingMaterial == pair.serverKeys?.keyingMaterial)
        #expect(pair.now > .zero)
    }

    @Test func unansweredHandshakeTimesOut() throws {
        var pair = try DTLSPair(
            initialRetransmitTimeout: .milliseconds(20), maximumRetransmitTimeout: .milliseconds(40))
        pair.run(until: .seconds(120)) { fromClient, _ in fromClient }  // every client datagram is lost
        #expect(pair.clientEvents == [.failed(.timedOut)])
        #expect(pair.sentByClient == 1 + 8)
    }

    @Test func garbageDatagramsAreRefusedWithoutHarm() throws {
        let pair = try DTLSPair()
        let garbage: [[UInt8]] = [
            [], [0x00, 0x01], [22, 0xFE, 0xFD, 0, 0],
            [22, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 8) + [0xFF, 0xFF],
            [99] + [UInt8](repeating: 7, count: 40),
        ]
        for bytes in garbage {
            #expect(throws: DTLSError.self) { try pair.server.handle(.datagram(bytes), at: .zero) }
        }
        // A well-framed record with a nonsense body: OpenSSL drops it or fails, but never crashes.
        var random = SeededRandom(seed: 5)
        let body = (0..<60).map { _ in UInt8.random(in: 0...255, using: &random) }
        try pair.server.handle(.datagram([22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 60] + body), at: .zero)
        while pair.server.pollOutput(at: .zero) != nil {}
        var fresh = try DTLSPair()
        fresh.run()
        #expect(fresh.clientKeys != nil)
    }

    @Test func randomRecordsNeverCrashEitherSide() throws {
        var random = SeededRandom(seed: 7)
        func datagram() -> [UInt8] {
            let length = Int.random(in: 0...80, using: &random)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            if length >= 13, Bool.random(using: &random) {  // mostly well framed, so OpenSSL parses them
                bytes[0] = UInt8.random(in: 20...25, using: &random)
                bytes[1] = 0xFE
                bytes[11] = 0
                bytes[12] = UInt8(length - 13)
            }
            return bytes
        }
        var pair = try DTLSPair()
        pair.client.start(at: .zero)
        for _ in 0..<500 {
            _ = try? pair.server.handle(.datagram(datagram()), at: .zero)
            _ = try? pair.client.handle(.datagram(datagram()), at: .zero)
        }
        pair.run()
        // Whatever the noise did, each side ended connected with matching keys or reported a failure.
        for (endpoint, events) in [(pair.client, pair.clientEvents), (pair.server, pair.serverEvents)] {
            #expect(endpoint.state == .connected || events.contains { if case .failed = $0 { true } else { false } })
        }
        if let client = pair.clientKeys, let server = pair.serverKeys {
            #expect(client.keyingMaterial == server.keyingMaterial)
        }
    }

    @Test func garbageDuringHandshakeDoesNotStopIt() throws {
        var pair = try DTLSPair()
        try pair.server.handle(.datagram([23, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 9, 0, 4, 1, 2, 3, 4]), at: .zero)
        pair.run()
        #expect(pair.clientKeys != nil && pair.serverKeys != nil)
    }

    @Test func openSSLsOwnWallClockResendsAreSuppressed() throws {
        // With a 20 ms timeout OpenSSL's wall-clock timer counts as expired 5 ms after each flight, and it
        // re-sends by itself whenever it then reads. Real time passes between flights here (8 ms, as on a
        // network) but no deadline is handled: only our deadlines may retransmit, so each side sends
        // exactly its two flights.
        let pair = try DTLSPair(initialRetransmitTimeout: .milliseconds(20))
        var sent = (client: 0, server: 0)
        var connected = 0
        pair.client.start(at: .zero)
        for _ in 0..<10 where connected < 2 {
            for (from, to, isClient) in [(pair.client, pair.server, true), (pair.server, pair.client, false)] {
                usleep(8_000)
                while let output = from.pollOutput(at: .zero) {
                    switch output {
                    case .transmit(let bytes):
                        if isClient { sent.client += 1 } else { sent.server += 1 }
                        try to.handle(.datagram(bytes), at: .zero)
                    case .event(.connected): connected += 1
                    case .event: break
                    }
                }
            }
        }
        #expect(connected == 2)
        #expect(sent.client == 2 && sent.server == 2)
    }

    @Test func datagramsStayWithinTheMTU() throws {
        let clientCertificate = try DTLSCertificate.generate()
        let serverCertificate = try DTLSCertificate.generate()
        let client = try DTLSEndpoint(
            .init(
                role: .client, certificate: clientCertificate, remoteFingerprints: [serverCertificate.fingerprint],
                mtu: 400))
        let server = try DTLSEndpoint(
            .init(
                role: .server, certificate: serverCertificate, remoteFingerprints: [clientCertificate.fingerprint],
                mtu: 400))
        var sizes: [Int] = []
        var connected = 0
        client.start(at: .zero)
        for _ in 0..<20 where connected < 2 {
            for (from, to) in [(client, server), (server, client)] {
                while let output = from.pollOutput(at: .zero) {
                    switch output {
                    case .transmit(let bytes):
                        sizes.append(bytes.count)
                        try to.handle(.datagram(bytes), at: .zero)
                    case .event(.connected): connected += 1
                    case .event: break
                    }
                }
            }
        }
        #expect(connected == 2)
        #expect(sizes.allSatisfy { $0 <= 400 })
        #expect(sizes.count > 4)  // the ~640-byte flights had to be split
    }

    @Test func closeNotifyIsDelivered() throws {
        var pair = try DTLSPair()
        pair.run()
        #expect(pair.client.state == .connected)
        pair.client.close(at: pair.now)
        #expect(pair.client.state == .closed)
        pair.run()
        #expect(pair.serverEvents.last == .closed)
        #expect(pair.server.state == .closed)
    }

    @Test func fingerprintFormatsAndParsesLikeSDP() throws {
        let certificate = try DTLSCertificate.generate()
        let text = certificate.fingerprint.sdpValue
        #expect(text.hasPrefix("sha-256 "))
        #expect(text.count == "sha-256 ".count + 32 * 3 - 1)
        #expect(DTLSFingerprint(sdpValue: text) == certificate.fingerprint)
        #expect(DTLSFingerprint(sdpValue: text.lowercased()) == certificate.fingerprint)
        #expect(DTLSFingerprint(sdpValue: "sha-256 AB:CD") == nil)
        #expect(DTLSFingerprint(sdpValue: "md5 " + text.dropFirst(8)) == nil)
        #expect(DTLSFingerprint(sdpValue: "sha-256 " + String(repeating: "G1:", count: 31) + "00") == nil)
        #expect(try DTLSCertificate.shared() === DTLSCertificate.shared())
    }

    @Test func keysDescriptionHidesTheMaterial() {
        let keys = DTLSSRTPKeys(profileID: 1, keyingMaterial: [0xAB, 0xCD], isClient: true)
        #expect(!keys.description.lowercased().contains("ab"))
    }
}
