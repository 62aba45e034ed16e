import PolyCore
import Testing

@testable import PolyNet

@Suite struct TURNErrorTests {
    typealias F = TURNFixtures

    /// A client whose credentialed Allocate is outstanding, with that request.
    static func challenged() throws -> (TURNClient, FakeTURNServer, STUNMessage) {
        var (client, outputs) = F.started()
        var server = FakeTURNServer()
        client.handle(
            .received(server.challenge(try server.request(try #require(outputs.transmitted.first)))), at: .zero)
        let request = try server.request(try #require(client.drain(at: .zero).transmitted.first))
        return (client, server, request)
    }

    @Test(arguments: [
        (403, TURNError.forbidden(server: F.serverName)),
        (441, .wrongCredentials(server: F.serverName)),
        (442, .unsupportedTransport(server: F.serverName)),
        (486, .quotaReached(server: F.serverName)),
        (508, .insufficientCapacity(server: F.serverName)),
        (500, .serverError(server: F.serverName, code: 500)),
        (401, .unauthorized(server: F.serverName)),
    ])
    func allocateErrorsMapToTypedErrors(code: Int, expected: TURNError) throws {
        var (client, server, request) = try Self.challenged()
        client.handle(.received(server.error(request, code, signed: code != 401)), at: .milliseconds(30))
        #expect(client.drain(at: .milliseconds(30)) == [.failed(expected)])
        #expect(client.state == .failed(expected))
        #expect(client.nextDeadline() == nil)
        #expect(expected.server == F.serverName)
        #expect("\(expected)".contains(F.serverName) && !"\(expected)".contains("call-5f9ec645"))
    }

    @Test func errorResponseWithoutCodeIsMalformed() throws {
        var (client, server, request) = try Self.challenged()
        let reply = STUNMessage(method: .allocate, messageClass: .errorResponse, transactionID: request.transactionID)
            .encoded(integrityKey: server.key)
        client.handle(.received(reply), at: .zero)
        #expect(client.drain(at: .zero) == [.failed(.malformedResponse(server: F.serverName))])
        _ = server
    }

    @Test func udpRetransmitsOnTheRFC8489ScheduleThenTimesOut() throws {
        var (client, outputs) = F.started()
        #expect(outputs.transmitted.count == 1)
        var times: [Instant] = []
        var failure: [TURNOutput] = []
        while let deadline = client.nextDeadline() {
            let out = client.drain(at: deadline)
            if !out.transmitted.isEmpty { times.append(deadline) }
            #expect(out.transmitted.allSatisfy { $0 == outputs.transmitted[0] })  // the same bytes, same id
            failure += out.events
        }
        let expected: [Double] = [0.5, 1.5, 3.5, 7.5, 15.5, 31.5]
        #expect(times == expected.map { .seconds($0) })
        #expect(failure == [.failed(.timeout(server: F.serverName, request: "Allocate"))])
        #expect(client.state == .failed(.timeout(server: F.serverName, request: "Allocate")))
    }

    @Test func timeoutComesAt39AndAHalfSeconds() throws {
        var (client, _) = F.started()
        while let deadline = client.nextDeadline(), deadline < .seconds(39.5) { _ = client.drain(at: deadline) }
        #expect(client.state == .allocating)
        #expect(client.nextDeadline() == .seconds(39.5))
        #expect(
            client.drain(at: .seconds(39.5)).events == [.failed(.timeout(server: F.serverName, request: "Allocate"))])
    }

    @Test func streamTransportNeverRetransmits() throws {
        var (client, outputs) = F.started(transport: .stream)
        #expect(outputs.transmitted.count == 1)
        #expect(client.nextDeadline() == .seconds(39.5))
        #expect(client.drain(at: .seconds(39)).isEmpty)
        #expect(client.drain(at: .seconds(39.5)) == [.failed(.timeout(server: F.serverName, request: "Allocate"))])
    }

    @Test func mismatchOnAllocateClearsTheStaleAllocationThenAllocates() throws {
        var link = TURNTestLink()
        link.client.handle(.start, at: .zero)
        var server = link.server
        let first = try server.request(try #require(link.client.drain(at: .zero).transmitted.first))
        link.client.handle(.received(server.challenge(first)), at: .zero)
        let second = try server.request(try #require(link.client.drain(at: .zero).transmitted.first))
        link.client.handle(.received(server.error(second, 437, signed: true)), at: .zero)
        link.server = server
        try link.pump()
        #expect(link.sent.map(\.message.method) == [.refresh, .allocate])
        #expect(link.sent.first?.message.lifetime == 0)
        #expect(
            link.events.map(\.output) == [.allocated(relayed: F.relayed, mapped: F.mapped, lifetime: .seconds(600))])
    }

    @Test func mismatchOnRefreshReallocatesOnceAndReinstallsPeers() throws {
        var link = try TURNTestLink.allocated()
        try link.handle(.permit(F.peer.ip))
        try link.handle(.bindChannel(F.otherPeer))
        // At the refresh the server has lost the allocation: answer 437, then behave again.
        try link.run(until: .seconds(539))
        link.events.removeAll()
        link.sent.removeAll()
        let refresh = try #require(link.client.drain(at: .seconds(540)).transmitted.first)
        let message = try link.server.request(refresh)
        #expect(message.method == .refresh)
        link.now = .seconds(540)
        link.server.relayed = TransportAddress("198.51.100.7:49999")!
        link.client.handle(.received(link.server.error(message, 437, signed: true)), at: link.now)
        try link.pump()
        #expect(link.sent.map(\.message.method).first == .allocate)
        #expect(Set(link.sent.dropFirst().map(\.message.method)) == [.createPermission, .channelBind])
        let relayed = TransportAddress("198.51.100.7:49999")!
        #expect(link.events.first?.output == .allocated(relayed: relayed, mapped: F.mapped, lifetime: .seconds(600)))
        #expect(link.events.contains { $0.output == .channelBound(F.otherPeer, channel: 0x4000) })
        #expect(link.client.state == .allocated(relayed: relayed))

        // A second 437 is not recovered from.
        let next = try #require(link.client.drain(at: .seconds(1080)).transmitted.first)
        let again = try link.server.request(next)
        link.client.handle(.received(link.server.error(again, 437, signed: true)), at: .seconds(1080))
        #expect(link.client.drain(at: .seconds(1080)).events == [.failed(.allocationMismatch(server: F.serverName))])
    }
}
