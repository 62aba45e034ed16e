import PolyCore
import Testing

@testable import PolyNet

@Suite struct TURNPeerTests {
    typealias F = TURNFixtures

    /// The Send indications among `bytes`, decoded.
    static func indications(_ bytes: [[UInt8]]) -> [STUNMessage] {
        bytes.compactMap { try? STUNMessage(decoding: $0) }.filter { $0.messageClass == .indication }
    }

    @Test func firstSendCreatesThePermissionThenSendsAnIndication() throws {
        var link = try TURNTestLink.allocated()
        link.client.handle(.send([1, 2, 3], to: F.peer), at: link.now)
        let out = link.client.drain(at: link.now)
        #expect(out.transmitted.count == 1)  // the CreatePermission only: the data waits for it
        let request = try link.server.request(try #require(out.transmitted.first))
        #expect(request.method == .createPermission)
        #expect(request.xorPeerAddress?.ip == F.peer.ip)
        #expect(link.server.isAuthenticated(request, bytes: out.transmitted[0]))

        link.client.handle(.received(link.server.success(request)), at: link.now)
        let after = link.client.drain(at: link.now)
        #expect(after.events == [.permissionCreated(F.peer.ip)])
        let sent = Self.indications(after.transmitted)
        #expect(sent.count == 1)
        #expect(sent.first?.method == .send)
        #expect(sent.first?.xorPeerAddress == F.peer && sent.first?.data == [1, 2, 3])
        #expect(sent.first?.hasIntegrity == false)

        // Later sends go straight out.
        try link.handle(.send([4], to: F.peer))
        #expect(Self.indications(link.other).map(\.data) == [[4]])
    }

    @Test func permissionsAreRefreshedEveryFourMinutes() throws {
        var link = try TURNTestLink.allocated()
        try link.handle(.permit(F.peer.ip))
        #expect(link.events.map(\.output).last == .permissionCreated(F.peer.ip))
        try link.run(until: .seconds(239))
        #expect(link.requests(.createPermission).count == 1)
        try link.run(until: .seconds(720))
        #expect(link.requests(.createPermission).map(\.at) == [.zero, .seconds(240), .seconds(480), .seconds(720)])
        #expect(link.events.filter { $0.output == .permissionCreated(F.peer.ip) }.count == 1)
    }

    @Test func dataIndicationsArriveFromPermittedPeersOnly() throws {
        var link = try TURNTestLink.allocated()
        try link.handle(.permit(F.peer.ip))
        link.client.handle(.received(link.server.dataIndication([9, 8], from: F.peer)), at: link.now)
        link.client.handle(.received(link.server.dataIndication([7], from: F.otherPeer)), at: link.now)
        #expect(link.client.drain(at: link.now) == [.data([9, 8], from: F.peer)])
    }

    @Test func channelBindSwitchesToChannelDataBothWays() throws {
        var link = try TURNTestLink.allocated()
        link.client.handle(.bindChannel(F.peer), at: link.now)
        let out = link.client.drain(at: link.now)
        let bind = try link.server.request(try #require(out.transmitted.first))
        #expect(bind.method == .channelBind)
        #expect(bind.channelNumber == 0x4000 && bind.xorPeerAddress == F.peer)

        // Before the binding succeeds, data goes as a Send indication (after its permission).
        link.client.handle(.send([5], to: F.peer), at: link.now)
        let permission = try link.server.request(try #require(link.client.drain(at: link.now).transmitted.first))
        #expect(permission.method == .createPermission)
        link.client.handle(.received(link.server.success(permission)), at: link.now)
        #expect(Self.indications(link.client.drain(at: link.now).transmitted).map(\.data) == [[5]])

        #expect(link.client.boundChannel(to: F.peer) == nil && link.client.hasPermission(for: F.peer.ip))
        link.client.handle(.received(link.server.success(bind)), at: link.now)
        #expect(link.client.drain(at: link.now) == [.channelBound(F.peer, channel: 0x4000)])
        #expect(link.client.boundChannel(to: F.peer) == 0x4000)
        link.client.handle(.send([1, 2, 3, 4, 5], to: F.peer), at: link.now)
        let framed = try #require(link.client.drain(at: link.now).transmitted.first)
        #expect(framed == [0x40, 0x00, 0x00, 0x05, 1, 2, 3, 4, 5])  // UDP: no padding

        link.client.handle(.received(ChannelData(channel: 0x4000, data: [6, 7]).encoded(padded: true)), at: link.now)
        link.client.handle(.received(ChannelData(channel: 0x4001, data: [1]).encoded(padded: false)), at: link.now)
        #expect(link.client.drain(at: link.now) == [.data([6, 7], from: F.peer)])  // 0x4001 is not bound
    }

    @Test func channelsAreRefreshedBeforeTenMinutes() throws {
        var link = try TURNTestLink.allocated()
        try link.handle(.bindChannel(F.peer))
        try link.run(until: .seconds(1200))
        #expect(link.requests(.channelBind).map(\.at) == [.zero, .seconds(540), .seconds(1080)])
        #expect(link.requests(.channelBind).allSatisfy { $0.message.channelNumber == 0x4000 })
        // The binding installed the permission, which CreatePermission keeps alive in between.
        #expect(link.requests(.createPermission).map(\.at).first == .seconds(240))
        #expect(link.events.filter { $0.output == .channelBound(F.peer, channel: 0x4000) }.count == 1)
    }

    @Test func channelDataIsPaddedOverStreams() throws {
        var link = try TURNTestLink.allocated(transport: .stream)
        try link.handle(.bindChannel(F.peer))
        try link.handle(.send([1, 2, 3, 4, 5], to: F.peer))
        #expect(link.other == [[0x40, 0x00, 0x00, 0x05, 1, 2, 3, 4, 5, 0, 0, 0]])
    }

    @Test func refusedPermissionDropsQueuedDataButKeepsTheAllocation() throws {
        var link = try TURNTestLink.allocated()
        link.client.handle(.send([1], to: F.peer), at: link.now)
        let request = try link.server.request(try #require(link.client.drain(at: link.now).transmitted.first))
        link.client.handle(.received(link.server.error(request, 403, signed: true)), at: link.now)
        #expect(link.client.drain(at: link.now) == [.permissionFailed(F.peer.ip, .forbidden(server: F.serverName))])
        #expect(link.client.state == .allocated(relayed: F.relayed))
    }

    @Test func failedChannelBindFallsBackToIndications() throws {
        var link = try TURNTestLink.allocated()
        try link.handle(.permit(F.peer.ip))
        link.client.handle(.bindChannel(F.peer), at: link.now)
        let request = try link.server.request(try #require(link.client.drain(at: link.now).transmitted.first))
        link.client.handle(.received(link.server.error(request, 508, signed: true)), at: link.now)
        #expect(
            link.client.drain(at: link.now) == [.channelBindFailed(F.peer, .insufficientCapacity(server: F.serverName))]
        )
        try link.handle(.send([3], to: F.peer))
        #expect(Self.indications(link.other).map(\.data) == [[3]])
    }

    @Test func peersAskedForBeforeTheAllocationAreInstalledWithIt() throws {
        var link = TURNTestLink()
        link.client.handle(.permit(F.otherPeer.ip), at: .zero)
        link.client.handle(.bindChannel(F.peer), at: .zero)
        #expect(link.client.drain(at: .zero).isEmpty)  // nothing before .start
        try link.handle(.start)
        #expect(link.sent.map(\.message.method).prefix(2) == [.allocate, .allocate])
        #expect(Set(link.sent.dropFirst(2).map(\.message.method)) == [.createPermission, .channelBind])
        let events = link.events.map(\.output)
        #expect(events.first == .allocated(relayed: F.relayed, mapped: F.mapped, lifetime: .seconds(600)))
        #expect(events.contains(.permissionCreated(F.otherPeer.ip)))
        #expect(events.contains(.channelBound(F.peer, channel: 0x4000)))
    }

    @Test func sendsBeforeAllocationAreDropped() {
        var (client, _) = F.started()
        client.handle(.send([1], to: F.peer), at: .zero)
        #expect(client.drain(at: .zero).isEmpty)
    }
}
