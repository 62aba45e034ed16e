import PolyCore
import Testing

@testable import PolyNet

@Suite struct TURNStreamTests {
    typealias F = TURNFixtures

    /// A STUN message, a padded ChannelData and another STUN message, as a server would stream them.
    static func frames() -> [[UInt8]] {
        var generator = SeededRandom(seed: 3)
        let stun = STUNMessage(
            method: .data, messageClass: .indication, transactionID: .random(using: &generator),
            attributes: [.xorPeerAddress(F.peer), .data([1, 2, 3])]
        ).encoded()
        return [stun, ChannelData(channel: 0x4000, data: [9, 9, 9, 9, 9]).encoded(padded: true), stun]
    }

    @Test func deframesByteAtATime() throws {
        var deframer = TURNStreamDeframer()
        var frames: [[UInt8]] = []
        for byte in Self.frames().joined() {
            deframer.append([byte])
            while let frame = try deframer.nextFrame() { frames.append(frame) }
        }
        let input = Self.frames()
        #expect(frames == [input[0], Array(input[1].prefix(9)), input[2]])  // ChannelData without its padding
        #expect(deframer.bufferedCount == 0)
    }

    @Test func deframesCoalescedAndSplitReads() throws {
        let stream = Array(Self.frames().joined())
        for split in [0, 3, 21, 30, stream.count - 1] {
            var deframer = TURNStreamDeframer()
            var frames: [[UInt8]] = []
            deframer.append(stream[..<split])
            while let frame = try deframer.nextFrame() { frames.append(frame) }
            deframer.append(stream[split...])
            while let frame = try deframer.nextFrame() { frames.append(frame) }
            #expect(frames.count == 3, "split at \(split)")
        }
    }

    @Test func oversizedFramesAreSkippedWithoutBuffering() throws {
        var deframer = TURNStreamDeframer(maxFrameLength: 256)
        let big = ChannelData(channel: 0x4000, data: Array(repeating: 7, count: 60_000)).encoded(padded: true)
        let small = ChannelData(channel: 0x4001, data: [1]).encoded(padded: true)
        var frames: [[UInt8]] = []
        var peak = 0
        for chunk in stride(from: 0, to: big.count, by: 1000) {
            deframer.append(big[chunk..<min(chunk + 1000, big.count)])
            while let frame = try deframer.nextFrame() { frames.append(frame) }
            peak = max(peak, deframer.bufferedCount)
        }
        deframer.append(small)
        while let frame = try deframer.nextFrame() { frames.append(frame) }
        #expect(frames == [[0x40, 0x01, 0x00, 0x01, 1]])
        #expect(deframer.oversizedFrames == 1)
        #expect(peak <= 256)
    }

    @Test func garbageDesynchronisesTheStream() throws {
        var deframer = TURNStreamDeframer()
        deframer.append([0x80, 1, 2, 3])
        #expect(throws: TURNStreamDeframer.Desynchronized.self) { try deframer.nextFrame() }
        var link = try TURNTestLink.allocated(transport: .stream)
        link.client.handle(.received([0xC0, 0, 0, 0]), at: link.now)
        #expect(link.client.drain(at: link.now) == [.failed(.malformedStream(server: F.serverName))])
    }

    @Test func clientAllocatesOverAStreamFedByteAtATime() throws {
        var (client, outputs) = F.started(transport: .stream)
        var server = FakeTURNServer()
        var pending = outputs.transmitted
        var events: [TURNOutput] = []
        while let next = pending.first {
            pending.removeFirst()
            guard let reply = try server.answer(next) else { continue }
            for byte in reply { client.handle(.received([byte]), at: .zero) }
            let out = client.drain(at: .zero)
            pending += out.transmitted
            events += out.events
        }
        #expect(events == [.allocated(relayed: F.relayed, mapped: F.mapped, lifetime: .seconds(600))])
        // Then data from a bound channel and a Data indication in one read.
        client.handle(.permit(F.peer.ip), at: .zero)
        client.handle(.bindChannel(F.peer), at: .zero)
        for bytes in client.drain(at: .zero).transmitted {
            client.handle(.received(try #require(try server.answer(bytes))), at: .zero)
        }
        #expect(
            client.drain(at: .zero).events == [.permissionCreated(F.peer.ip), .channelBound(F.peer, channel: 0x4000)])
        client.handle(.received(Array(Self.frames().joined())), at: .zero)
        #expect(
            client.drain(at: .zero) == [
                .data([1, 2, 3], from: F.peer), .data([9, 9, 9, 9, 9], from: F.peer), .data([1, 2, 3], from: F.peer),
            ])
    }

    @Test func channelDataParsingNeverTrustsTheLength() {
        #expect(throws: ChannelData.ParseError.truncated) { try ChannelData(parsing: [0x40, 0x00, 0x00]) }
        #expect(throws: ChannelData.ParseError.truncated) { try ChannelData(parsing: [0x40, 0x00, 0x00, 0x05, 1]) }
        #expect(throws: ChannelData.ParseError.invalidChannel(0x5000)) {
            try ChannelData(parsing: [0x50, 0x00, 0x00, 0x00])
        }
        #expect(throws: ChannelData.ParseError.trailingBytes) {
            try ChannelData(parsing: [0x40, 0x00, 0x00, 0x00, 0, 0, 0, 0])
        }
        #expect(
            (try? ChannelData(parsing: [0x4F, 0xFF, 0x00, 0x01, 7, 0, 0, 0])) == ChannelData(channel: 0x4FFF, data: [7])
        )
    }
}
