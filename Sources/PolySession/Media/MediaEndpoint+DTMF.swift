// DTMF on the call's audio stream: RFC 4733 telephone-events when the far end negotiated them, else the
// tone pairs mixed into the sent audio. Digits play out on the 20 ms frame clock (`DTMFSender`), so events
// interleave with Opus frames on one SSRC, sequence space and clock.
import PolyAudio
import PolyCore
import PolyMedia
import PolyNet

extension MediaEndpoint {
    /// Queues `digits` (0-9, *, #, A-D), each `duration` long (40-1000 ms, whole frames) with 100 ms between
    /// them; returns how they will be sent. Throws for bad digits or durations, or before media can flow.
    public func sendDTMF(_ digits: String, duration: Duration = .milliseconds(160), at now: Instant)
        throws(DTMFError) -> DTMFMethod
    {
        let parsed = try DTMFDigit.parse(digits)
        guard DTMFSender.durations.contains(duration) else {
            throw .invalidDuration("a DTMF digit lasts 40-1000 ms, not \(duration)")
        }
        guard !isClosed, srtp != nil, mediaPath != nil, canSend else { throw .notConnected }
        let method = dtmfMethod
        let frame = Double(configuration.codec.frameMilliseconds)
        dtmfSender.enqueue(
            parsed, method: method, frames: Int((duration.inMilliseconds / frame).rounded()),
            gapFrames: Int((DTMFSender.gap.inMilliseconds / frame).rounded()))
        return method
    }

    /// How digits go now: RFC 4733 if the far end negotiated telephone-event, else in-band.
    public var dtmfMethod: DTMFMethod { telephoneEventPayloadType == nil ? .inband : .rfc4733 }

    /// This frame's DTMF: nil when telephone-event packets replace the frame (no audio to send), else the
    /// audio to encode — `pcm` itself, or a copy with the digit's tone mixed in.
    func applyDTMF(to pcm: UnsafeBufferPointer<Int16>, at now: Instant) -> UnsafeBufferPointer<Int16>? {
        guard !dtmfSender.isIdle else { return pcm }
        switch dtmfSender.nextFrame(audioTimestamp: outgoing.nextTimestamp, samplesPerFrame: timestampIncrement) {
        case .audio:
            return pcm
        case .event(let event, let timestamp, let marker, let copies):
            sendTelephoneEvent(event, timestamp: timestamp, marker: marker, copies: copies, at: now)
            outgoing.skipFrame(samples: timestampIncrement)
            return nil
        case .tone(let digit, let frameIndex):
            guard let source = pcm.baseAddress, let target = toneFrame.baseAddress else { return pcm }
            target.update(from: source, count: min(pcm.count, toneFrame.count))
            let channels = configuration.codec.channels
            DTMFTone.mix(
                event: digit.event, startSample: frameIndex * (frameSamples / channels),
                sampleRate: configuration.codec.sampleRate, channels: channels, into: toneFrame)
            return UnsafeBufferPointer(toneFrame)
        }
    }

    /// `copies` packets of one event (3 for its end, RFC 4733 §2.5.1.4), each with the next sequence number.
    private func sendTelephoneEvent(
        _ event: TelephoneEvent, timestamp: UInt32, marker: Bool, copies: Int, at now: Instant
    ) {
        guard let payloadType = telephoneEventPayloadType else { return }
        event.write(into: UnsafeMutableRawBufferPointer(encodeBuffer))
        let payload = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: encodeBuffer[0..<TelephoneEvent.wireCount]))
        for copy in 0..<copies {
            let header = outgoing.makeHeader(
                payloadType: payloadType, timestamp: timestamp, marker: marker && copy == 0)
            sendPacket(header: header, payload: payload, at: now)
        }
    }
}
