// Digital silence without the encoder: a caller waiting for an agent, a muted microphone or an agent
// between replies sends frames of exact zeros most of the time, and Opus spends nearly as long coding
// silence as speech (300 of 400 µs per frame at complexity 9). From the third silent frame in a row the
// packet coded once from silence is sent instead; the first two are coded (they carry the tail of the
// speech and its FEC), and the encoder is reset before speech resumes (its memory is of the speech before).
import PolyAudio
import PolyCore

/// The silence packet of each coding mode, coded at set-up, and the current run of silent frames.
struct SilencePackets {
    private(set) var main: [UInt8] = []
    private(set) var cleanPath: [UInt8] = []
    /// Silent frames in a row just sent (coded or not).
    var run = 0

    /// Coded frames at the start of a run (the speech's tail, the last speech frame's FEC).
    static let codedFrames = 2

    init() {}

    /// Codes one frame of zeros in each mode from a fresh state, and leaves `encoder` fresh in the main mode.
    init(encoder: OpusEncoder, coding: (main: OpusEncoderSettings, cleanPath: OpusEncoderSettings?), frameSamples: Int)
    {
        let zeros = [Int16](repeating: 0, count: frameSamples)
        if let clean = coding.cleanPath, (try? encoder.reconfigure(clean)) != nil {
            cleanPath = (try? encoder.encode(zeros)) ?? []
        }
        if (try? encoder.reconfigure(coding.main)) != nil {
            main = (try? encoder.encode(zeros)) ?? []
        }
        encoder.reset()
    }

    /// Whether every sample is zero.
    static func isSilent(_ frame: UnsafeBufferPointer<Int16>) -> Bool {
        var bits: Int16 = 0
        for sample in frame { bits |= sample }
        return bits == 0
    }
}

extension MediaEndpoint {
    /// Sends the stored silence packet for `pcm` when it is the third or later silent frame in a row (and
    /// DTX is off: with DTX the encoder itself stops sending); true if it did. A frame with sound after a
    /// skipped run resets the encoder.
    func sendSilenceIfPossible(_ pcm: UnsafeBufferPointer<Int16>, at now: Instant) -> Bool {
        guard !encoder.settings.dtx, SilencePackets.isSilent(pcm) else {
            if silencePackets.run > SilencePackets.codedFrames { encoder.reset() }
            silencePackets.run = 0
            return false
        }
        silencePackets.run += 1
        let packet = codingCleanPath ? silencePackets.cleanPath : silencePackets.main
        guard silencePackets.run > SilencePackets.codedFrames, !packet.isEmpty else { return false }
        packet.withUnsafeBytes { sendPayload($0, at: now) }
        return true
    }
}
