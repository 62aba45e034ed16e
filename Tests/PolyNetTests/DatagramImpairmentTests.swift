// A call's own datagrams through `DatagramImpairment` in virtual time: the loss, burst, delay and jitter
// statistics are the configured ones (seeded), outages drop their window, and the queue stays bounded.
import PolyCore
import Testing

@testable import PolyNet

@Suite struct DatagramImpairmentTests {
    static let from = TransportAddress(ip: .loopbackV4, port: 5000)
    static let to = TransportAddress(ip: .loopbackV4, port: 6000)
    static let payload = [UInt8](repeating: 0x80, count: 120)

    /// Offers `count` datagrams 20 ms apart in `direction`, draining the queue as virtual time passes;
    /// returns, per datagram in order, its delay (nil: dropped).
    static func run(
        _ impairment: inout DatagramImpairment, count: Int, direction: DatagramImpairment.Direction = .send
    ) -> [Duration?] {
        var delays = [Duration?](repeating: nil, count: count)
        var sentAt: [Int: Instant] = [:]
        var tagged = payload
        for index in 0..<count {
            let now = Instant.zero + .milliseconds(20) * index
            while let due = impairment.nextDeadline, due <= now { deliver(&impairment, at: due, &delays, sentAt) }
            tagged.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(index).bigEndian, as: UInt32.self) }
            sentAt[index] = now
            let fate = tagged.withUnsafeBytes {
                impairment.offer($0, from: from, to: to, direction: direction, at: now)
            }
            if fate == .now { delays[index] = .zero }
        }
        while let due = impairment.nextDeadline { deliver(&impairment, at: due, &delays, sentAt) }
        return delays
    }

    static func deliver(
        _ impairment: inout DatagramImpairment, at now: Instant, _ delays: inout [Duration?], _ sentAt: [Int: Instant]
    ) {
        while let datagram = impairment.popDue(at: now) {
            let index = Int(datagram.bytes.withUnsafeBytes { UInt32(bigEndian: $0.loadUnaligned(as: UInt32.self)) })
            delays[index] = now - sentAt[index]!
            impairment.recycle(datagram.bytes)
        }
    }

    /// Lengths of the runs of consecutive drops.
    static func bursts(_ delays: [Duration?]) -> [Int] {
        var bursts: [Int] = []
        var run = 0
        for delay in delays {
            if delay == nil {
                run += 1
            } else if run > 0 {
                bursts.append(run)
                run = 0
            }
        }
        if run > 0 { bursts.append(run) }
        return bursts
    }

    @Test func lossRateAndMeanBurstLengthAreTheConfiguredOnes() {
        var impairment = DatagramImpairment(NetworkImpairment(loss: 0.1, meanBurstLength: 3, seed: 7), start: .zero)
        let delays = Self.run(&impairment, count: 60_000)
        let lost = delays.filter { $0 == nil }.count
        let rate = Double(lost) / Double(delays.count)
        let bursts = Self.bursts(delays)
        let meanBurst = Double(lost) / Double(bursts.count)
        print(String(format: "impairment: loss %.4f, mean burst %.2f packets", rate, meanBurst))
        #expect(abs(rate - 0.1) < 0.01)
        #expect(abs(meanBurst - 3) < 0.25)
        #expect(impairment.counters(.send).lost == lost && impairment.counters(.send).offered == 60_000)
        // No delay configured: nothing was copied into the queue.
        #expect(delays.allSatisfy { $0 == nil || $0 == .zero })
    }

    @Test func independentLossHasBurstsOfAboutOnePacket() {
        var impairment = DatagramImpairment(NetworkImpairment(loss: 0.2, seed: 3), start: .zero)
        let delays = Self.run(&impairment, count: 40_000)
        let lost = delays.filter { $0 == nil }.count
        let meanBurst = Double(lost) / Double(Self.bursts(delays).count)
        #expect(abs(Double(lost) / 40_000 - 0.2) < 0.01)
        // Geometric runs with p = 0.2: mean 1 / (1 − 0.2) = 1.25.
        #expect(abs(meanBurst - 1.25) < 0.05)
    }

    @Test func delayAndJitterHaveTheConfiguredMeanAndSpread() {
        var impairment = DatagramImpairment(
            NetworkImpairment(delay: .milliseconds(40), jitter: .milliseconds(10), seed: 11), start: .zero)
        let delays = Self.run(&impairment, count: 20_000).map { $0!.inMilliseconds }
        let mean = delays.reduce(0, +) / Double(delays.count)
        let spread = (delays.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(delays.count)).squareRoot()
        print(String(format: "impairment: delay mean %.2f ms, standard deviation %.2f ms", mean, spread))
        #expect(abs(mean - 40) < 0.5)
        #expect(abs(spread - 10) < 0.5)
        #expect(delays.min()! >= 0)
        // Jitter larger than the packet spacing reorders, as netem does.
        let arrivals = delays.enumerated().map { Double($0.offset) * 20 + $0.element }
        #expect(zip(arrivals, arrivals.dropFirst()).contains { $0 > $1 })
    }

    @Test func eachDirectionHasItsOwnLinkAndSeededStream() {
        let configuration = NetworkImpairment(
            send: .init(loss: 0.3), receive: .init(delay: .milliseconds(100)), seed: 5)
        var first = DatagramImpairment(configuration, start: .zero)
        var again = DatagramImpairment(configuration, start: .zero)
        let sent = Self.run(&first, count: 5_000, direction: .send)
        #expect(Self.run(&again, count: 5_000, direction: .send).map { $0 == nil } == sent.map { $0 == nil })
        let received = Self.run(&first, count: 1_000, direction: .receive)
        #expect(received.allSatisfy { $0 == .milliseconds(100) })
        #expect(abs(Double(sent.filter { $0 == nil }.count) / 5_000 - 0.3) < 0.03)
        var otherSeed = DatagramImpairment(
            NetworkImpairment(send: configuration.send, receive: configuration.receive, seed: 6), start: .zero)
        #expect(Self.run(&otherSeed, count: 5_000).map { $0 == nil } != sent.map { $0 == nil })
    }

    @Test func outagesDropEveryDatagramInTheirWindowCountedFromTheStart() {
        // The model starts at 1 s (media connected then); the outage is 1-2 s after that.
        var impairment = DatagramImpairment(
            NetworkImpairment(outages: [1.0..<2.0]), start: .seconds(1))
        let delays = Self.run(&impairment, count: 200)
        let dropped = delays.indices.filter { delays[$0] == nil }
        #expect(dropped == Array(100..<150))
        #expect(impairment.counters(.send).droppedInOutage == 50)
    }

    @Test func theDelayQueueIsBounded() {
        var impairment = DatagramImpairment(NetworkImpairment(delay: .seconds(5)), start: .zero, maximumQueued: 10)
        for index in 0..<12 {
            let fate = Self.payload.withUnsafeBytes {
                impairment.offer($0, from: Self.from, to: Self.to, direction: .receive, at: .milliseconds(Int64(index)))
            }
            #expect(fate == (index < 10 ? .queued : .dropped))
        }
        #expect(impairment.overflowed == 2 && impairment.queuedCount == 10)
        #expect(impairment.nextDeadline == .seconds(5))
        #expect(impairment.popDue(at: .seconds(4)) == nil)
        let first = impairment.popDue(at: .seconds(5))
        #expect(first?.bytes == Self.payload && first?.to == Self.to && first?.direction == .receive)
    }

    @Test func invalidSettingsAreNamed() {
        let cases: [(NetworkImpairment, String)] = [
            (NetworkImpairment(loss: 1), "send loss must be at least 0 and below 1"),
            (NetworkImpairment(receive: .init(meanBurstLength: 0.5)), "receive mean burst length must be 1-1000"),
            (NetworkImpairment(send: .init(jitter: .seconds(-1))), "send jitter must be 0-10 s"),
            (NetworkImpairment(outages: [-1.0..<2.0]), "send outage"),
        ]
        for (impairment, message) in cases {
            let error = #expect(throws: NetworkImpairmentError.self) { try impairment.validate() }
            #expect(error?.reason.hasPrefix(message) == true, "\(error?.reason ?? "no error")")
        }
        #expect(throws: Never.self) { try NetworkImpairment(loss: 0.5, meanBurstLength: 4).validate() }
    }
}
