// What one echo call's media costs the bridge per call-second, part by part, measured in this process
// before the ramp (per-thread CPU time, so other processes' load inflates it less than wall time): the
// payloads the generator sends are played out (jitter buffer + Opus decode) and encoded again with the
// echo agent's server profile, at its rate: its clean-path mode (CELT, what a loss-free loopback call
// uses; faithful and, for comparison, `--agent-profile economy`) and its lossy-path mode (SILK with FEC). What the load steps measure beyond these is the rest (SRTP,
// sockets, RTCP, the loop). Also the encoder at the client's default, to show what the profile saves.
import Foundation
import PolyAudio
import PolyCore
import PolyMedia
import PolySession
import PolyVoiceBridge

struct CostModel: Encodable {
    /// Milliseconds of CPU per call-second (50 frames).
    var playoutMs: Double
    /// The echo agent's lossy-path encoder (SILK, FEC, complexity 1, wideband).
    var encodeServerProfileMs: Double
    /// The echo agent's clean-path encoder (`CleanPathCoding.celtWideband`, the faithful default).
    var encodeCleanPathMs: Double
    /// The clean-path encoder of `--agent-profile economy` (CELT at a lower bitrate).
    var encodeCleanPathEconomyMs: Double
    var encodeClientDefaultMs: Double
    /// Calls one core could carry if playout and the clean-path encode were all a call cost.
    var codecBoundCallsPerCore: Double

    /// The echo agent's audio rate (`AgentMediaProfile.server`).
    static let rate = AgentMediaProfile.server.sampleRate

    static func measure(payloads: EncodedInput, frames: Int = 400) throws -> CostModel {
        let frameSamples = AgentAudio.frameSamples(atRate: rate)
        var configuration = JitterBufferConfiguration()
        configuration.frameSamples = frameSamples / 2
        configuration.maximumStretchRatio = 0  // the echo agent's server profile plays out without time-stretch
        var jitter = JitterBuffer(
            decoder: try OpusDecoder(sampleRate: rate, channels: 1), configuration: configuration)
        var output = [Int16](repeating: 0, count: frameSamples / 2)
        let playout = cpuSeconds {
            for index in 0..<frames {
                let now = Instant.milliseconds(Int64(index) * 20)
                let range = payloads.ranges[index % payloads.ranges.count]
                payloads.bytes[range].withUnsafeBufferPointer { payload in  // as the endpoint's receive path does
                    jitter.insert(
                        payload: payload, timestamp: UInt32(index * 960), ssrc: 1, marker: index == 0, arrival: now,
                        at: now)
                }
                output.withUnsafeMutableBufferPointer { _ = jitter.pull(at: now, into: $0) }
                output.withUnsafeMutableBufferPointer { _ = jitter.pull(at: now + .milliseconds(10), into: $0) }
            }
        }
        func encode(
            complexity: Int, bandwidth: OpusBandwidth?, application: OpusApplication = .voip, fec: Bool = true,
            lossPercent: Int = 0, rate: Int = rate, bitrate: Int = CodecSettings().bitrate
        ) throws -> Double {
            let frameSamples = AgentAudio.frameSamples(atRate: rate)
            let tone = (0..<frameSamples * 50).map {
                Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / Double(rate)))
            }
            let encoder = try OpusEncoder(
                OpusEncoderSettings(
                    sampleRate: rate, channels: 1, bitrate: bitrate, complexity: complexity, maxBandwidth: bandwidth,
                    inbandFEC: fec,
                    packetLossPercent: lossPercent, application: application))
            let packet = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1500)
            defer { packet.deallocate() }
            return cpuSeconds {
                tone.withUnsafeBufferPointer { samples in
                    for index in 0..<frames {
                        let start = (index % 50) * frameSamples
                        _ = try? encoder.encode(
                            UnsafeBufferPointer(rebasing: samples[start..<start + frameSamples]), into: packet)
                    }
                }
            }
        }
        // The lossy path: FEC planned for the loss a call starts with (`CodecSettings.expectedLossPercent`).
        let server = try encode(
            complexity: 1, bandwidth: .wideband, lossPercent: CodecSettings().expectedLossPercent)
        func encode(_ clean: CleanPathCoding?) throws -> Double {
            guard let clean else { throw BenchError("the echo profile has no clean-path coding") }
            return try encode(
                complexity: clean.complexity, bandwidth: clean.maxBandwidth, application: clean.application,
                fec: false, bitrate: clean.bitrate ?? CodecSettings().bitrate)
        }
        let cleanPath = try encode(EchoProfile.faithful.mediaProfile.cleanPathCoding)
        let cleanPathEconomy = try encode(EchoProfile.economy.mediaProfile.cleanPathCoding)
        let client = try encode(complexity: 9, bandwidth: nil, rate: 48_000)
        let perCallSecond = 50.0 / Double(frames) * 1000
        let model = CostModel(
            playoutMs: playout * perCallSecond, encodeServerProfileMs: server * perCallSecond,
            encodeCleanPathMs: cleanPath * perCallSecond,
            encodeCleanPathEconomyMs: cleanPathEconomy * perCallSecond, encodeClientDefaultMs: client * perCallSecond,
            codecBoundCallsPerCore: 0)
        var bounded = model
        bounded.codecBoundCallsPerCore = 1000 / (model.playoutMs + model.encodeCleanPathMs)
        return bounded
    }

    /// CPU time of the calling thread spent in `body`.
    private static func cpuSeconds(_ body: () throws -> Void) rethrows -> Double {
        func now() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        let start = now()
        try body()
        return now() - start
    }
}
