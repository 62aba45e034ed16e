// The Swift side: exactly the loops of copus_bench.c, through PolyAudio's OpusEncoder/OpusDecoder.
import COpusBench
import PolyAudio

enum SwiftLoops {
    static func settings(_ config: copus_bench_config) -> OpusEncoderSettings {
        OpusEncoderSettings(
            sampleRate: Int(config.sample_rate), channels: Int(config.channels),
            frameDuration: .milliseconds(Int64(config.frame_size) * 1000 / Int64(config.sample_rate)),
            bitrate: Int(config.bitrate), complexity: Int(config.complexity), inbandFEC: config.inband_fec != 0,
            packetLossPercent: Int(config.packet_loss_percent))
    }

    /// Same contract as `copus_bench_encode`: seconds in the loop (set-up excluded), per-frame times.
    static func encode(
        _ config: copus_bench_config, pcm: UnsafeBufferPointer<Int16>, frames: Int,
        packets: UnsafeMutableBufferPointer<UInt8>, maxPacket: Int, lengths: UnsafeMutableBufferPointer<Int32>,
        frameSeconds: UnsafeMutableBufferPointer<Double>
    ) throws -> Double {
        let encoder = try OpusEncoder(settings(config))
        let step = Int(config.frame_size * config.channels)
        let start = copus_bench_now()
        var before = start
        for index in 0..<frames {
            let length = try encoder.encode(
                UnsafeBufferPointer(rebasing: pcm[(index * step)..<((index + 1) * step)]),
                into: UnsafeMutableBufferPointer(rebasing: packets[(index * maxPacket)..<((index + 1) * maxPacket)]))
            lengths[index] = Int32(length)
            let after = copus_bench_now()
            frameSeconds[index] = after - before
            before = after
        }
        return copus_bench_now() - start
    }

    /// Same contract as `copus_bench_decode`.
    static func decode(
        _ config: copus_bench_config, packets: UnsafeBufferPointer<UInt8>, maxPacket: Int,
        lengths: UnsafeBufferPointer<Int32>, frames: Int, pcm: UnsafeMutableBufferPointer<Int16>,
        frameSeconds: UnsafeMutableBufferPointer<Double>
    ) throws -> Double {
        let decoder = try OpusDecoder(sampleRate: Int(config.sample_rate), channels: Int(config.channels))
        let start = copus_bench_now()
        var before = start
        for index in 0..<frames {
            let packet = UnsafeBufferPointer(
                rebasing: packets[(index * maxPacket)..<(index * maxPacket + Int(lengths[index]))])
            _ = try decoder.decode(packet, into: pcm)
            let after = copus_bench_now()
            frameSeconds[index] = after - before
            before = after
        }
        return copus_bench_now() - start
    }
}
