// Applies `SenderCodecPolicy` to the encoders: on the far end's description (its Opus fmtp) and on each change
// of the RTCP-driven loss hint.
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

    /// Brings both encoders to what the policy says now (libopus takes each from the next frame on).
    func applySenderPolicy() {
        let policy = senderPolicy
        let fec = policy.forwardErrorCorrection
        if encoder.settings.inbandFEC != fec { encoder.setInbandFEC(fec) }
        let hint = fec ? lossHint.percent : 0
        if encoder.settings.packetLossPercent != hint { try? encoder.setPacketLossPercent(hint) }
        let bitrate = policy.bitrate(lossPercent: hint)
        if encoder.settings.bitrate != bitrate { try? encoder.setBitrate(bitrate) }
        if encoder.settings.maxBandwidth != policy.maxBandwidth { encoder.setMaxBandwidth(policy.maxBandwidth) }
        if encoder.settings.dtx != policy.dtx { encoder.setDTX(policy.dtx) }
        if encoder.forcesMono != policy.forceMono { encoder.setForceMono(policy.forceMono) }
        guard let clean = cleanPathEncoder else { return }
        let cleanBitrate = policy.capped(configuration.cleanPathCoding?.bitrate ?? policy.bitrate(lossPercent: 0))
        if clean.settings.bitrate != cleanBitrate { try? clean.setBitrate(cleanBitrate) }
        if clean.settings.dtx != policy.dtx { clean.setDTX(policy.dtx) }
        if clean.forcesMono != policy.forceMono { clean.setForceMono(policy.forceMono) }
    }

    /// The bitrate the main encoder targets now (bit/s).
    public var encoderBitrate: Int { encoder.settings.bitrate }

    /// The widest band the main encoder codes now (nil: fullband as the bitrate allows).
    public var encoderMaxBandwidth: OpusBandwidth? { encoder.settings.maxBandwidth }

    /// Whether the main encoder spends bits on in-band FEC now (the far end may have said `useinbandfec=0`).
    public var encoderUsesFEC: Bool { encoder.settings.inbandFEC }

    /// Whether frames are coded with DTX now (ours or the far end's `usedtx=1`).
    public var encoderUsesDTX: Bool { encoder.settings.dtx }

    /// Whether a stereo encoder was told to code mono (the far end's `stereo=0`).
    public var encoderForcesMono: Bool { encoder.forcesMono }
}
