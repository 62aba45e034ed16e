// Applies `SenderCodecPolicy` to the encoder's two modes: on the far end's description (its Opus fmtp) and on
// each change of the RTCP-driven loss hint.
import PolyAudio
import PolyNet

extension MediaEndpoint {
    /// The far end's Opus `a=fmtp` (first live audio line) from an offer or answer.
    func adoptRemoteFormat(of description: SessionDescription) {
        guard let line = description.media.first(where: { !$0.isRejected && $0.opusPayloadType != nil }) else {
            return
        }
        if senderPolicy.takeRemote(line.opusFormatParameters, lossPercent: lossHint.percent) {
            applySenderPolicy()
        }
    }

    /// A receiver report changed the loss hint (`lossHint.percent`): FEC's hint and the bitrate follow.
    func lossHintChanged() {
        applySenderPolicy()
    }

    /// Brings both modes' settings to what the policy says now, and the encoder to its mode's (libopus takes
    /// each change from the next frame on, without a reset).
    func applySenderPolicy() {
        let policy = senderPolicy
        let fec = policy.forwardErrorCorrection
        let hint = fec ? lossHint.percent : 0
        coding.main.inbandFEC = fec
        coding.main.packetLossPercent = hint
        coding.main.bitrate = policy.bitrate(lossPercent: hint)
        coding.main.maxBandwidth = policy.maxBandwidth
        coding.main.dtx = policy.dtx
        if var clean = coding.cleanPath {
            clean.bitrate = policy.capped(configuration.cleanPathCoding?.bitrate ?? policy.bitrate(lossPercent: 0))
            clean.dtx = policy.dtx
            coding.cleanPath = clean
        }
        let target = codingCleanPath ? coding.cleanPath ?? coding.main : coding.main
        let current = encoder.settings
        if current.inbandFEC != target.inbandFEC { encoder.setInbandFEC(target.inbandFEC) }
        if current.packetLossPercent != target.packetLossPercent {
            try? encoder.setPacketLossPercent(target.packetLossPercent)
        }
        if current.bitrate != target.bitrate { try? encoder.setBitrate(target.bitrate) }
        if current.maxBandwidth != target.maxBandwidth { encoder.setMaxBandwidth(target.maxBandwidth) }
        if current.dtx != target.dtx { encoder.setDTX(target.dtx) }
        if encoder.forcesMono != policy.forceMono { encoder.setForceMono(policy.forceMono) }
    }

    /// The bitrate the main encoder targets now (bit/s).
    public var encoderBitrate: Int { coding.main.bitrate }

    /// The widest band the main encoder codes now (nil: fullband as the bitrate allows).
    public var encoderMaxBandwidth: OpusBandwidth? { coding.main.maxBandwidth }

    /// Whether the main encoder spends bits on in-band FEC now (the far end may have said `useinbandfec=0`).
    public var encoderUsesFEC: Bool { coding.main.inbandFEC }

    /// Whether frames are coded with DTX now (ours or the far end's `usedtx=1`).
    public var encoderUsesDTX: Bool { coding.main.dtx }

    /// Whether a stereo encoder was told to code mono (the far end's `stereo=0`).
    public var encoderForcesMono: Bool { encoder.forcesMono }
}
