// `OpusEncoder.reconfigure`: one encoder that switches mode codes exactly as a new encoder of that mode.
import PolyAudio
import PolyCore
import Testing

@Suite struct OpusEncoderReconfigureTests {
    /// SILK with FEC at 16 kHz, as a server's main encoder on a lossy path.
    static let silkFEC = OpusEncoderSettings(
        sampleRate: 16000, bitrate: 32000, complexity: 1, maxBandwidth: .wideband, inbandFEC: true,
        packetLossPercent: 10)
    /// CELT only at complexity 0, as `CleanPathCoding.celtWideband`.
    static let celt = OpusEncoderSettings(
        sampleRate: 16000, bitrate: 64000, complexity: 0, maxBandwidth: .wideband,
        application: .restrictedLowDelay)

    /// Voice-like input: two harmonics under a slow envelope, with noise, so both SILK and CELT have work.
    static func signal(frames: Int, frameSamples: Int) -> [[Int16]] {
        let tone = AudioProcessorSignals.mix(
            TestSignals.sine(frequency: 220, sampleRate: 16000, seconds: 2, amplitude: 0.3),
            TestSignals.sine(frequency: 1330, sampleRate: 16000, seconds: 2, amplitude: 0.1))
        let input = AudioProcessorSignals.mix(tone, AudioProcessorSignals.noise(count: tone.count, rms: 300, seed: 5))
        return (0..<frames).map { Array(input[($0 * frameSamples)..<(($0 + 1) * frameSamples)]) }
    }

    static func encodeAll(_ encoder: OpusEncoder, _ frames: [[Int16]]) throws -> [[UInt8]] {
        try frames.map { try encoder.encode($0) }
    }

    @Test(arguments: [(silkFEC, celt), (celt, silkFEC)])
    func aReconfiguredEncoderCodesAsANewOne(from first: OpusEncoderSettings, to second: OpusEncoderSettings)
        throws
    {
        let frames = Self.signal(frames: 80, frameSamples: first.frameSamples)
        let switched = try OpusEncoder(first)
        let before = try Self.encodeAll(switched, Array(frames[0..<40]))
        try switched.reconfigure(second)
        #expect(switched.settings == second)
        let after = try Self.encodeAll(switched, Array(frames[40...]))
        let fresh = try Self.encodeAll(try OpusEncoder(second), Array(frames[40...]))
        #expect(after == fresh)
        // The two modes really code differently, so equality above is not a coincidence of settings.
        let unswitched = try Self.encodeAll(try OpusEncoder(first), frames)
        #expect(Array(unswitched[0..<40]) == before)
        #expect(Array(unswitched[40...]) != after)
    }

    @Test func forcedMonoSurvivesAReconfiguration() throws {
        let stereo = OpusEncoderSettings(channels: 2)
        let encoder = try OpusEncoder(stereo)
        encoder.setForceMono(true)
        var next = stereo
        next.bitrate = 48000
        try encoder.reconfigure(next)
        #expect(encoder.forcesMono)
        #expect(encoder.settings.bitrate == 48000)
    }

    @Test func aReconfigurationThatChangesTheFrameShapeIsRejected() throws {
        let encoder = try OpusEncoder(Self.silkFEC)
        var otherRate = Self.silkFEC
        otherRate.sampleRate = 48000
        #expect(throws: OpusError.self) { try encoder.reconfigure(otherRate) }
        var otherFrame = Self.silkFEC
        otherFrame.frameDuration = .milliseconds(10)
        #expect(throws: OpusError.self) { try encoder.reconfigure(otherFrame) }
        var badBitrate = Self.silkFEC
        badBitrate.bitrate = 1
        #expect(throws: OpusError.self) { try encoder.reconfigure(badBitrate) }
        #expect(encoder.settings == Self.silkFEC)
    }
}
