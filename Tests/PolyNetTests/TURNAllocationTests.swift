import PolyCore
import Testing

@testable import PolyNet

@Suite struct TURNAllocationTests {
    typealias F = TURNFixtures

    @Test func md5AndLongTermKeyKnownAnswers() {
        #expect(LongTermCredential.md5(Array("abc".utf8)) == hexBytes("900150983cd24fb0d6963f7d28e17f72"))
        // MD5("user:realm:pass"), as `printf user:realm:pass | md5sum` prints it.
        #expect(
            LongTermCredential.key(username: "user", realm: "realm", password: "pass")
                == hexBytes("8493fbc53ba582fb4c044c456bdc40eb"))
    }

    @Test func rfc5769LongTermRequestVerifiesWithTheKey() throws {
        // RFC 5769 §2.4: the password "TheMatrIX" is the SASLprep'd form of the RFC's.
        let bytes = hexBytes(
            """
            000100602112a44278ad3433c6ad72c029da412e00060012e3839ee38388e383aae38383e382afe382b90000
            0015001c662f2f3439396b39353464364f4c33346f4c394653547679363473410014000b6578616d706c652e6f726700
            00080014f67024656dd64a3e02b8e0712e85c9a28ca89666
            """)
        let message = try STUNMessage(decoding: bytes)
        #expect(message.realm == "example.org")
        #expect(message.nonce == "f//499k954d6OL34oL9FSTvy64sA")
        let key = LongTermCredential.key(username: message.username ?? "", realm: "example.org", password: "TheMatrIX")
        #expect(message.verifyIntegrity(of: bytes, key: key))
        #expect(
            !message.verifyIntegrity(
                of: bytes, key: LongTermCredential.key(username: "x", realm: "example.org", password: "TheMatrIX")))
    }

    @Test func allocateAnswersTheChallengeWithLongTermCredentials() throws {
        var (client, outputs) = F.started()
        var server = FakeTURNServer()
        let first = try server.request(try #require(outputs.transmitted.first))
        #expect(first.method == .allocate)
        #expect(first.username == nil && !first.hasIntegrity)
        #expect(first.attributes.contains(.requestedTransport(17)))
        #expect(first.lifetime == 600)
        #expect(client.state == .allocating)

        client.handle(.received(server.challenge(first)), at: .milliseconds(10))
        let retry = try #require(client.drain(at: .milliseconds(10)).transmitted.first)
        let second = try server.request(retry)
        #expect(second.method == .allocate && second.transactionID != first.transactionID)
        #expect(second.username == F.username && second.realm == "example.org" && second.nonce == "nonce-1")
        #expect(server.isAuthenticated(second, bytes: retry))
        #expect(second.attributes.contains(.requestedTransport(17)))

        client.handle(.received(server.success(second)), at: .milliseconds(20))
        #expect(
            client.drain(at: .milliseconds(20))
                == [.allocated(relayed: F.relayed, mapped: F.mapped, lifetime: .seconds(600))])
        #expect(client.state == .allocated(relayed: F.relayed))
        #expect(client.relayedAddress == F.relayed && client.mappedAddress == F.mapped)
    }

    @Test func responsesFailingIntegrityAreIgnored() throws {
        var link = TURNTestLink()
        link.client.handle(.start, at: .zero)
        var server = FakeTURNServer()
        let first = try server.request(try #require(link.client.drain(at: .zero).transmitted.first))
        link.client.handle(.received(server.challenge(first)), at: .zero)
        let second = try server.request(try #require(link.client.drain(at: .zero).transmitted.first))
        // Signed with another key, then not signed at all: neither may allocate.
        link.client.handle(.received(server.success(second, key: Array(repeating: 1, count: 16))), at: .zero)
        var unsigned = try STUNMessage(decoding: server.success(second))
        unsigned.attributes = [.xorRelayedAddress(TransportAddress("6.6.6.6:6666")!)]
        link.client.handle(.received(unsigned.encoded()), at: .zero)
        #expect(link.client.drain(at: .zero).events.isEmpty)
        #expect(link.client.state == .allocating)
        // The genuine response still works.
        link.client.handle(.received(server.success(second)), at: .zero)
        #expect(link.client.drain(at: .zero).events.count == 1)
        #expect(link.client.relayedAddress == F.relayed)
    }

    @Test func lateAndForeignResponsesAreIgnored() throws {
        var (client, outputs) = F.started()
        var server = FakeTURNServer()
        let first = try server.request(try #require(outputs.transmitted.first))
        client.handle(.received(server.challenge(first)), at: .zero)
        let second = try server.request(try #require(client.drain(at: .zero).transmitted.first))
        // The challenge again (a retransmission's answer), a success for another id, a Refresh-typed success.
        client.handle(.received(server.challenge(first)), at: .zero)
        var other = try STUNMessage(decoding: server.success(second))
        other.transactionID = STUNTransactionID(bytes: Array(repeating: 9, count: 12))!
        client.handle(.received(other.encoded(integrityKey: server.key)), at: .zero)
        var wrongMethod = other
        wrongMethod.transactionID = second.transactionID
        wrongMethod.method = .refresh
        client.handle(.received(wrongMethod.encoded(integrityKey: server.key)), at: .zero)
        #expect(client.drain(at: .zero).isEmpty)
        client.handle(.received(server.success(second)), at: .zero)
        #expect(client.drain(at: .zero).events.count == 1)
        client.handle(.received(server.success(second)), at: .zero)  // a duplicate of the answer
        #expect(client.drain(at: .zero).isEmpty)
    }

    @Test func wrongPasswordFailsNamingOnlyTheServer() throws {
        var link = TURNTestLink()
        link.server.password = "another-password"
        try link.handle(.start)
        #expect(link.requests(.allocate).count == 2)  // one challenge, one credentialed attempt, no loop
        #expect(link.events.map(\.output) == [.failed(.unauthorized(server: F.serverName))])
        #expect(link.client.state == .failed(.unauthorized(server: F.serverName)))
        #expect(link.client.nextDeadline() == nil)
        let texts = [
            "\(TURNError.unauthorized(server: F.serverName))", "\(link.client)", "\(link.client.configuration)",
        ]
        var dumped = ""
        dump(link.client, to: &dumped)
        for text in texts + [dumped, String(reflecting: link.client.configuration)] {
            #expect(!text.contains(F.password) && !text.contains("call-5f9ec645") && !text.contains("nonce-1"))
        }
        #expect(texts[0].contains(F.serverName))
    }

    @Test func staleNonceIsRetriedWithTheNewNonce() throws {
        var link = try TURNTestLink.allocated()
        link.server.nonce = "nonce-2"
        try link.run(until: .seconds(541))
        let refreshes = link.requests(.refresh)
        #expect(refreshes.count == 2)
        #expect(refreshes.map(\.message.nonce) == ["nonce-1", "nonce-2"])
        #expect(refreshes[0].message.transactionID != refreshes[1].message.transactionID)
        #expect(link.client.state == .allocated(relayed: F.relayed))
        #expect(link.events.count == 1)  // only the allocation: the refresh succeeded silently
    }

    @Test func endlessStaleNonceGivesUp() throws {
        var (client, outputs) = F.started()
        var server = FakeTURNServer()
        var request = try server.request(try #require(outputs.transmitted.first))
        client.handle(.received(server.challenge(request)), at: .zero)
        var events: [TURNOutput] = []
        for round in 0..<5 {
            let out = client.drain(at: .zero)
            events += out.events
            guard let bytes = out.transmitted.first else { break }
            request = try server.request(bytes)
            client.handle(
                .received(server.error(request, 438, extra: [.realm("example.org"), .nonce("n\(round)")])), at: .zero)
        }
        events += client.drain(at: .zero).events
        #expect(events == [.failed(.staleNonceLoop(server: F.serverName))])
        #expect(server.requests.count == 5)  // unauthenticated, credentialed, then 3 stale-nonce retries
    }

    @Test func refreshesAMinuteEarlyOrHalfwayForShortLifetimes() throws {
        #expect(TURNClient.refreshDelay(for: .seconds(600)) == .seconds(540))
        #expect(TURNClient.refreshDelay(for: .seconds(100)) == .seconds(50))
        var link = try TURNTestLink.allocated()
        try link.run(until: .seconds(539))
        #expect(link.requests(.refresh).isEmpty)
        try link.run(until: .seconds(1080))
        #expect(link.requests(.refresh).map(\.at) == [.seconds(540), .seconds(1080)])
        #expect(link.requests(.refresh).allSatisfy { $0.message.lifetime == 600 })
        #expect(link.client.state == .allocated(relayed: F.relayed))

        // A server granting only 100 s: refreshed every 50 s, each still asking for the configured 600 s.
        var short = TURNTestLink()
        short.server.lifetime = 100
        try short.handle(.start)
        #expect(short.events.first?.output == .allocated(relayed: F.relayed, mapped: F.mapped, lifetime: .seconds(100)))
        try short.run(until: .seconds(49))
        #expect(short.requests(.refresh).isEmpty)
        try short.run(until: .seconds(300))
        #expect(short.requests(.refresh).map(\.at) == (1...6).map { .seconds(Double(50 * $0)) })
    }

    @Test func deallocateSendsLifetimeZeroThenCloses() throws {
        var link = try TURNTestLink.allocated()
        try link.handle(.permit(F.peer.ip))
        try link.handle(.deallocate)
        let last = try #require(link.sent.last)
        #expect(last.message.method == .refresh && last.message.lifetime == 0)
        #expect(link.server.isAuthenticated(last.message, bytes: try #require(link.lastRequestBytes)))
        #expect(link.events.last?.output == .closed)
        #expect(link.client.state == .closed)
        #expect(link.client.nextDeadline() == nil)
        try link.handle(.send([1], to: F.peer))
        #expect(link.other.isEmpty)
    }

    @Test func deallocateBeforeAllocationClosesAtOnce() {
        var (client, _) = F.started()
        client.handle(.deallocate, at: .milliseconds(5))
        #expect(client.drain(at: .milliseconds(5)) == [.closed])
        #expect(client.nextDeadline() == nil)
    }

    @Test func successWithoutRelayedAddressIsMalformed() throws {
        var (client, outputs) = F.started()
        var server = FakeTURNServer()
        client.handle(
            .received(server.challenge(try server.request(try #require(outputs.transmitted.first)))), at: .zero)
        let request = try server.request(try #require(client.drain(at: .zero).transmitted.first))
        let reply = STUNMessage(
            method: .allocate, messageClass: .successResponse, transactionID: request.transactionID,
            attributes: [.lifetime(600)]
        ).encoded(integrityKey: server.key)
        client.handle(.received(reply), at: .zero)
        #expect(client.drain(at: .zero) == [.failed(.malformedResponse(server: F.serverName))])
    }
}
