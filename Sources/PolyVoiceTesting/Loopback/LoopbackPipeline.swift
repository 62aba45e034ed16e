// The local loopback as a sans-IO state machine: 20 ms frames are captured (encoded with Opus and sent into a
// simulated network) and played (packets that have arrived go into the jitter buffer, one frame comes out).
//
// No clock or thread: the caller passes time in, so a file runs in virtual time (as fast as the CPU allows)
// and a device run is paced by its caller's real-time loop.
import PolyAudio
import PolyCore
import PolyNet
import PolyMedia

/// mic → Opus (optional in-band FEC) → `ImpairmentModel` → `JitterBuffer` → speaker, for one machine.
public struct LoopbackPipeline {
    public let configuration: LoopbackConfiguration
    public private(set) var statistics = LoopbackStatistics()

    private let encoder: OpusEncoder
    private var network: ImpairmentModel
    private var jitterBuffer: JitterBuffer<OpusDecoder>
    /// Packets on the simulated wire, by arrival time, with the time each was sent.
    private var inFlight = DelayQueue<(packet: JitterPacket, sent: Instant)>()
    private var packetScratch = [UInt8](repeating: 0, count: OpusEncoder.maxPacketBytes)
    private var sequence: UInt16 = 0
    private var timestamp: UInt32 = 0

    /// RTP (12), UDP (8) and IPv4 (20) headers: what a rate limit sees besides the Opus payload.
    private static let headerBytes = 40
    private static let ssrc: UInt32 = 0x100b_ac4b

    /// Creates the encoder, decoder, network model (its outage windows start at `start`) and jitter buffer.
    public init(_ configuration: LoopbackConfiguration, start: Instant = .zero) throws(OpusError) {
        self.configuration = configuration
        encoder = try OpusEncoder(configuration.encoderSettings)
        network = ImpairmentModel(configuration.impairment, seed: configuration.seed, start: start)
        // Without in-band FEC no packet carries LBRR, so the buffer never tries FEC (`OpusDecoder.carriesFEC`).
        jitterBuffer = JitterBuffer(
            decoder: try OpusDecoder(sampleRate: 48000, channels: 1), configuration: configuration.jitterBuffer)
    }

    /// Encodes one captured 20 ms frame (960 samples, 48 kHz mono) and sends it into the network at `now`.
    public mutating func capture(_ frame: UnsafeBufferPointer<Int16>, at now: Instant) throws(OpusError) {
        statistics.inputLevel = LevelMeter.measure(frame)
        let length = try packetScratch.withUnsafeMutableBufferPointer { (packet) throws(OpusError) -> Int in
            try encoder.encode(frame, into: packet)
        }
        let decision = network.decide(packetAt: now, size: length + Self.headerBytes)
        statistics.packetsSent += 1
        if decision.isLost { statistics.packetsLost += 1 }
        if !decision.isLost {
            let payload = Array(packetScratch[..<length])
            for arrival in decision.deliveries {
                let packet = JitterPacket(
                    sequence: sequence, timestamp: timestamp, ssrc: Self.ssrc, marker: sequence == 0, payload: payload,
                    arrival: arrival)
                inFlight.insert((packet, now), due: arrival)
            }
        }
        sequence &+= 1
        timestamp &+= UInt32(AudioFrameFormat.samplesPerFrame)
    }

    /// Array convenience for `capture(_:at:)`.
    public mutating func capture(_ frame: [Int16], at now: Instant) throws(OpusError) {
        try frame.withUnsafeBufferPointer { (buffer) throws(OpusError) in try capture(buffer, at: now) }
    }

    /// Delivers every packet that has arrived by `now` to the jitter buffer (each at its own arrival time) and
    /// plays one 20 ms frame (960 samples) into `output`.
    @discardableResult
    public mutating func play(at now: Instant, into output: UnsafeMutableBufferPointer<Int16>) -> PlayoutOperation {
        while let (arrival, item) = inFlight.popDue(at: now) {
            jitterBuffer.insert(item.packet, at: arrival)
            statistics.packetsDelivered += 1
            statistics.networkDelaySum += (arrival - item.sent).inSeconds
        }
        let operation = jitterBuffer.pull(at: now, into: output)
        statistics.framesPlayed += 1
        statistics.jitterBuffer = jitterBuffer.statistics
        statistics.outputLevel = LevelMeter.measure(UnsafeBufferPointer(output))
        return operation
    }

    /// When the next packet arrives from the network (nil: nothing in flight).
    public func nextDeadline() -> Instant? { inFlight.nextDue }

    /// True when nothing is in flight and the jitter buffer holds less than one frame: the output is complete.
    public var isDrained: Bool {
        inFlight.isEmpty && jitterBuffer.bufferedPackets == 0 && jitterBuffer.currentLevel < .milliseconds(20)
    }
}
