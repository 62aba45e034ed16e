// Baseline for evaluation: a fixed playout delay with its clock set by the first packet to arrive.
//
// This is what a simple receiver does: play packet k at (first arrival + delay + k's media offset), conceal
// whatever is missing at its slot (PLC, no FEC), drop what arrives after its slot. No adaptation.
import PolyCore

/// Fixed-delay playout: the baseline the adaptive `JitterBuffer` is measured against.
public struct FixedDelayBuffer<Decoder: PlayoutDecoder>: PlayoutBuffer {
    public private(set) var decoder: Decoder
    public private(set) var statistics = JitterBufferStatistics()
    public let delay: Duration
    public let frameSamples: Int
    private var packets: [Int64: JitterPacket] = [:]
    private var anchor: (timestamp: Int64, time: Instant)?
    private var position: Int64 = 0
    private var highest: Int64?
    private var pending: [Int16] = []
    private let scratch = ScratchBuffer(count: 5760)
    private var concealing = false
    private var concealRun = 0

    public init(decoder: Decoder, delay: Duration, frameSamples: Int = 480) {
        self.decoder = decoder
        self.delay = delay
        self.frameSamples = frameSamples
    }

    public var targetDelay: Duration { delay }
    public var currentLevel: Duration {
        guard let highest else { return .zero }
        return .microseconds((highest + 960 - position) * 1000 / 48)
    }

    public mutating func insert(_ packet: JitterPacket, at now: Instant) {
        let timestamp: Int64
        if let highest {
            timestamp = highest + Int64(Int32(bitPattern: packet.timestamp &- UInt32(truncatingIfNeeded: highest)))
        } else {
            timestamp = Int64(packet.timestamp)
        }
        highest = max(highest ?? timestamp, timestamp)
        if anchor == nil {
            anchor = (timestamp, now)
            position = timestamp
        }
        if packet.payload.withUnsafeBufferPointer({ decoder.carriesFEC($0) }) { statistics.fecPacketsReceived += 1 }
        guard timestamp >= position, packets[timestamp] == nil else {
            statistics.packetsDiscarded += 1
            return
        }
        packets[timestamp] = packet
    }

    public mutating func pull(at now: Instant, into output: UnsafeMutableBufferPointer<Int16>) -> PlayoutOperation {
        var operation = PlayoutOperation.normal
        while pending.count < output.count {
            guard let anchor else {
                pending += [Int16](repeating: 0, count: output.count)
                operation = .silence
                break
            }
            let due = anchor.time + delay + .microseconds((position - anchor.timestamp) * 1000 / 48)
            if due > now {
                pending += [Int16](repeating: 0, count: output.count - pending.count)
                operation = .silence
                break
            }
            if let packet = packets.removeValue(forKey: position) {
                let n =
                    (try? packet.payload.withUnsafeBufferPointer { try decoder.decode($0, into: scratch.samples) }) ?? 0
                if n > 0 {
                    pending += scratch.prefix(n)
                    position += Int64(n)
                    statistics.jitterBufferEmittedCount += UInt64(n)
                    statistics.jitterBufferDelay += ((now - packet.arrival).inSeconds + 0.01) * Double(n)
                    statistics.jitterBufferTargetDelay += delay.inSeconds * Double(n)
                    endConcealment()
                    operation = .normal
                    continue
                }
            }
            let n = frameSamples
            _ = try? decoder.conceal(into: scratch.prefix(n))
            pending += scratch.prefix(n)
            position += Int64(n)
            if !concealing {
                concealing = true
                concealRun = 0
                statistics.concealmentEvents += 1
            }
            concealRun += n
            statistics.concealedSamples += UInt64(n)
            operation = .expand
            for key in packets.keys where key < position { packets[key] = nil }
        }
        for i in 0..<output.count { output[i] = pending[i] }
        pending.removeFirst(output.count)
        statistics.totalSamplesReceived += UInt64(output.count)
        return operation
    }

    private mutating func endConcealment() {
        if concealing, concealRun >= 150 * 48 {
            statistics.interruptionCount += 1
            statistics.totalInterruptionDuration += Double(concealRun) / 48000
        }
        concealing = false
    }
}
