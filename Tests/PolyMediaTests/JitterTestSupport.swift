// Shared helpers for the jitter buffer tests: a deterministic fake decoder and a virtual-time trace runner.
import Foundation
import PolyCore
import PolyMedia

/// Decodes packet `k` (payload: FEC flag + big-endian index) to samples `k*960 ..< (k+1)*960` of a steady tone, at
/// 1/80 of its amplitude when the flag byte says quiet (a pause with some noise in it); conceals with silence; FEC
/// recovers packet `k-1` from packet `k`. Payloads of ≤ 2 bytes decode as DTX silence.
struct FakeDecoder: PlayoutDecoder {
    struct Malformed: Error {}
    static let packetSamples = 960
    var frequency = 190.0
    var amplitude = 8000.0
    private(set) var resets = 0

    static func payload(index: Int, fec: Bool = true, quiet: Bool = false) -> [UInt8] {
        let value = UInt32(truncatingIfNeeded: index)
        return [
            (fec ? 1 : 0) | (quiet ? 2 : 0), UInt8(value >> 24), UInt8((value >> 16) & 0xFF),
            UInt8((value >> 8) & 0xFF),
            UInt8(value & 0xFF),
        ]
    }

    func tone(_ n: Int) -> Int16 { Int16(amplitude * sin(2 * .pi * frequency * Double(n) / 48000)) }

    private func index(_ packet: UnsafeBufferPointer<UInt8>) throws -> Int {
        guard packet.count == 5 else { throw Malformed() }
        return Int(UInt32(packet[1]) << 24 | UInt32(packet[2]) << 16 | UInt32(packet[3]) << 8 | UInt32(packet[4]))
    }

    mutating func decode(_ packet: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>) throws
        -> Int
    {
        if packet.count <= 2 {
            for i in 0..<Self.packetSamples { output[i] = 0 }
            return Self.packetSamples
        }
        let k = try index(packet)
        let scale: Int16 = packet[0] & 2 == 0 ? 1 : 80
        for i in 0..<Self.packetSamples { output[i] = tone(k * Self.packetSamples + i) / scale }
        return Self.packetSamples
    }

    /// The fake keeps no state between packets: the same as `decode`.
    mutating func decodeAhead(_ packet: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>)
        throws -> Int
    { try decode(packet, into: output) }

    mutating func conceal(into output: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        for i in output.indices { output[i] = 0 }
        return output.count
    }

    mutating func decodeFEC(from nextPacket: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>)
        throws -> Int
    {
        let k = try index(nextPacket) - 1
        let start = (k + 1) * Self.packetSamples - output.count
        for i in output.indices { output[i] = tone(start + i) }
        return output.count
    }

    func carriesFEC(_ packet: UnsafeBufferPointer<UInt8>) -> Bool { packet.count == 5 && packet[0] & 1 == 1 }

    mutating func reset() { resets += 1 }
}

/// One packet of a test trace: packet index `k` is sent at `k * 20` ms; nil arrival = lost.
struct TracePacket {
    var index: Int
    var arrivalMs: Double?
    var payload: [UInt8]? = nil
    var ssrc: UInt32 = 1
    var marker = false
    var timestampOffset: UInt32 = 0
    var sequenceOffset: UInt16 = 0
}

/// What a virtual-time run of the buffer produced, one entry per 10 ms pull.
struct TraceRun {
    var operations: [PlayoutOperation] = []
    var frames: [[Int16]] = []
    var targetMs: [Double] = []
    var statistics = JitterBufferStatistics()
    var buffer: JitterBuffer<FakeDecoder>

    var output: [Int16] { frames.flatMap { $0 } }

    /// Index of the first pull at or after `ms` whose frame has audible (non-zero) samples.
    func firstAudibleFrame(atOrAfter ms: Double) -> Int? {
        let start = Int((ms / 10).rounded(.up))
        return frames.indices.first { $0 >= start && frames[$0].contains { abs($0) > 100 } }
    }
}

/// Plays `packets` through a fresh buffer, pulling every 10 ms from 0 to `durationMs`.
func runTrace(
    _ packets: [TracePacket], durationMs: Int, configuration: JitterBufferConfiguration = JitterBufferConfiguration(),
    frequency: Double = 190, beforePull: ((Int, inout JitterBuffer<FakeDecoder>) -> Void)? = nil
) -> TraceRun {
    var decoder = FakeDecoder()
    decoder.frequency = frequency
    var buffer = JitterBuffer(decoder: decoder, configuration: configuration)
    let arriving = packets.filter { $0.arrivalMs != nil }.enumerated().sorted {
        ($0.element.arrivalMs!, $0.offset) < ($1.element.arrivalMs!, $1.offset)
    }.map(\.element)
    var next = 0
    var run = TraceRun(buffer: buffer)
    for pull in 0...(durationMs / 10) {
        let now = Double(pull * 10)
        while next < arriving.count, arriving[next].arrivalMs! <= now {
            let p = arriving[next]
            let arrival = Instant(nanoseconds: Int64(p.arrivalMs! * 1e6))
            let packet = JitterPacket(
                sequence: UInt16(truncatingIfNeeded: p.index) &+ p.sequenceOffset,
                timestamp: UInt32(truncatingIfNeeded: p.index * 960) &+ p.timestampOffset, ssrc: p.ssrc,
                marker: p.marker, payload: p.payload ?? FakeDecoder.payload(index: p.index), arrival: arrival)
            buffer.insert(packet, at: arrival)
            next += 1
        }
        beforePull?(pull, &buffer)
        let (frame, operation) = buffer.pull(at: .milliseconds(Int64(pull * 10)))
        run.frames.append(frame)
        run.operations.append(operation)
        run.targetMs.append(buffer.targetDelay.inMilliseconds)
    }
    run.statistics = buffer.statistics
    run.buffer = buffer
    return run
}

/// Packets `0..<count` sent every 20 ms, arriving after `baseMs` plus uniform jitter in `0..<jitterMs`.
func jitteredTrace(count: Int, baseMs: Double = 30, jitterMs: Double, seed: UInt64) -> [TracePacket] {
    var random = SeededRandom(seed: seed)
    return (0..<count).map { TracePacket(index: $0, arrivalMs: Double($0) * 20 + baseMs + random.unit() * jitterMs) }
}

/// The period (in samples) of a tone in `x`, from interpolated upward zero crossings.
func measuredPeriod(_ x: ArraySlice<Int16>) -> Double? {
    let values = Array(x)
    var crossings: [Double] = []
    for i in 1..<values.count where values[i - 1] < 0 && values[i] >= 0 {
        let a = Double(values[i - 1])
        let b = Double(values[i])
        crossings.append(Double(i - 1) + (-a) / (b - a))
    }
    guard crossings.count >= 3 else { return nil }
    return (crossings.last! - crossings.first!) / Double(crossings.count - 1)
}

extension JitterBufferConfiguration {
    /// The defaults without the start delay: for tests of a rule that acts in a stream's first seconds, where the
    /// start delay's floor (`JitterStartDelayTests`) would otherwise set the target.
    static var withoutStartDelay: JitterBufferConfiguration {
        var configuration = JitterBufferConfiguration()
        configuration.startDelay = .zero
        return configuration
    }
}
