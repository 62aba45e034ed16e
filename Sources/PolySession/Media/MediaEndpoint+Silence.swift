// Digital silence for less: a caller waiting for an agent, a muted microphone or an agent between replies sends
// frames of exact zeros most of the time, and Opus spends nearly as long coding silence as speech (300 of 400 µs
// per frame at complexity 9). The first two silent frames in a row are coded as usual (they carry the tail of the
// speech and its FEC). From the third on:
// - while the encoder codes in-band FEC (a lossy path), at complexity 0 (about a fifth of the time), so that its
//   voice activity detector and FEC run on through the pause. A reset encoder's detector rates the first soft
//   frames after a pause below SILK's threshold for coding FEC, so losses there would be concealed instead of
//   recovered (docs/SENDER.md, "Digital silence");
// - otherwise the packet coded once from silence at set-up is sent, and the encoder is reset before it codes
//   again (its memory is of the audio before).
import PolyAudio
import PolyCore

/// The silence packet of each coding mode, coded at set-up, and what the current run of silent frames did; sans-IO.
struct SilencePackets {
    private(set) var main: [UInt8] = []
    private(set) var cleanPath: [UInt8] = []
    /// Silent frames in a row just sent (coded or not).
    private(set) var run = 0
    /// Stored packets went out since the encoder last coded: it must start afresh.
    private var storedSent = false
    /// The encoder codes the pause at complexity 0.
    private var lowered = false

    /// Coded frames at the start of a run (the speech's tail, the last speech frame's FEC).
    static let codedFrames = 2

    /// What to do with one frame.
    enum Step: Equatable {
        /// Code it; `reset` the encoder first, and `complexity` lowered for a pause or restored after it.
        case code(reset: Bool, complexity: ComplexityChange?)
        /// Send the stored silence packet instead.
        case sendStored
    }

    /// The encoder's complexity around a pause: 0 for it, the coding mode's own after it.
    enum ComplexityChange: Equatable { case lower, restore }

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

    /// The step for the next frame: `silent` (all zeros, DTX off), whether the encoder `codesFEC` now, and
    /// whether the current mode has a stored packet.
    mutating func step(silent: Bool, codesFEC: Bool, hasStoredPacket: Bool) -> Step {
        guard silent else {
            defer { (run, storedSent, lowered) = (0, false, false) }
            return .code(reset: storedSent, complexity: lowered ? .restore : nil)
        }
        run += 1
        guard run > Self.codedFrames else { return .code(reset: false, complexity: nil) }
        guard codesFEC || !hasStoredPacket else {
            storedSent = true
            return .sendStored
        }
        defer { (storedSent, lowered) = (false, true) }
        return .code(reset: storedSent, complexity: lowered ? nil : .lower)
    }

    /// Whether every sample is zero.
    static func isSilent(_ frame: UnsafeBufferPointer<Int16>) -> Bool {
        var bits: Int16 = 0
        for sample in frame { bits |= sample }
        return bits == 0
    }
}

extension MediaEndpoint {
    /// Sends the stored silence packet for `pcm` when `SilencePackets` says so (true if it did); otherwise readies
    /// the encoder for the frame (a reset, its complexity for a pause or after it) and leaves the coding to the
    /// caller.
    func sendSilenceIfPossible(_ pcm: UnsafeBufferPointer<Int16>, at now: Instant) -> Bool {
        let packet = codingCleanPath ? silencePackets.cleanPath : silencePackets.main
        let settings = encoder.settings
        let step = silencePackets.step(
            silent: !settings.dtx && SilencePackets.isSilent(pcm),
            codesFEC: settings.inbandFEC && settings.packetLossPercent > 0, hasStoredPacket: !packet.isEmpty)
        switch step {
        case .sendStored:
            packet.withUnsafeBytes { sendPayload($0, at: now) }
            return true
        case .code(let reset, let complexity):
            if reset { encoder.reset() }
            let mode = codingCleanPath ? coding.cleanPath ?? coding.main : coding.main
            switch complexity {
            case .lower: try? encoder.setComplexity(0)
            case .restore: try? encoder.setComplexity(mode.complexity)
            case nil: break
            }
            return false
        }
    }
}
