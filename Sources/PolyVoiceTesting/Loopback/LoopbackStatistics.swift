// What a loopback run did to the audio: packets, losses, FEC, concealment, delay, levels.
import PolyAudio
import PolyMedia

/// Cumulative figures of a `LoopbackPipeline`.
public struct LoopbackStatistics: Sendable, Equatable {
    /// Packets the encoder produced and sent into the simulated network.
    public var packetsSent = 0
    /// Of those, packets the network dropped (random loss, bursts, outages).
    public var packetsLost = 0
    /// Copies handed to the jitter buffer (duplicates included).
    public var packetsDelivered = 0
    /// Sum of the network delays of delivered copies, in seconds.
    public var networkDelaySum = 0.0
    /// 20 ms frames played out.
    public var framesPlayed = 0
    /// The jitter buffer's own statistics (FEC recoveries, concealment, buffer delay).
    public var jitterBuffer = JitterBufferStatistics()
    /// Level of the last captured frame.
    public var inputLevel = AudioLevel.silence
    /// Level of the last played frame.
    public var outputLevel = AudioLevel.silence

    public init() {}

    /// Lost packets rebuilt from the next packet's in-band FEC.
    public var fecRecovered: Int { Int(jitterBuffer.fecPacketsRecovered) }

    /// Share of the played audio that was concealed (PLC or silence in place of missing audio), 0...100.
    public var concealedPercent: Double {
        jitterBuffer.totalSamplesReceived == 0
            ? 0 : Double(jitterBuffer.concealedSamples) * 100 / Double(jitterBuffer.totalSamplesReceived)
    }

    /// Share of sent packets the network dropped, 0...100.
    public var lossPercent: Double { packetsSent == 0 ? 0 : Double(packetsLost) * 100 / Double(packetsSent) }

    /// Mean one-way network delay of delivered packets, in milliseconds.
    public var meanNetworkDelayMilliseconds: Double {
        packetsDelivered == 0 ? 0 : networkDelaySum / Double(packetsDelivered) * 1000
    }

    /// Mean time a sample spent in the jitter buffer, in milliseconds.
    public var meanBufferDelayMilliseconds: Double { jitterBuffer.meanDelayMilliseconds }

    /// Mean delay from capture to playout (network plus jitter buffer), in milliseconds.
    public var meanDelayMilliseconds: Double { meanNetworkDelayMilliseconds + meanBufferDelayMilliseconds }
}
