// The audio path: PCM → Opus → RTP → SRTP out; SRTP → RTP → jitter buffer → PCM back. Preallocated
// buffers on the per-packet path (the jitter buffer copies each payload into a slot of its own).
import PolyAudio
import PolyCore
import PolyMedia
import PolyNet

extension MediaEndpoint {
    /// Encodes and sends one frame (20 ms: 960 samples at 48 kHz mono). Dropped silently until SRTP is
    /// keyed, a pair is selected and a negotiated line lets us send. Muted: encoded silence is sent instead.
    public func sendAudio(_ frame: UnsafeBufferPointer<Int16>, at now: Instant) {
        guard !isClosed, srtp != nil, mediaPath != nil, canSend, frame.count == frameSamples else { return }
        let input = isMuted ? UnsafeBufferPointer(silence) : frame
        // A DTMF event replaces the frame's packet; an in-band digit comes back mixed into a copy.
        guard let pcm = applyDTMF(to: input, at: now) else { return }
        selectCodingMode()
        if sendSilenceIfPossible(pcm, at: now) { return }
        guard let encoded = try? encoder.encode(pcm, into: encodeBuffer), encoded > 0 else { return }
        sendPayload(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: encodeBuffer[0..<encoded])), at: now)
    }

    /// The clean-path mode once the far end reports no loss, else the main one. The encoder is initialised
    /// afresh in the new mode, as a new encoder would start (its memory is of the other mode's coding).
    private func selectCodingMode() {
        guard let clean = coding.cleanPath else { return }
        let cleanPath = lossHint.hasReport && lossHint.percent == 0
        guard cleanPath != codingCleanPath else { return }
        codingCleanPath = cleanPath
        // Both settings were validated at set-up and the policy only sets valid values.
        try? encoder.reconfigure(cleanPath ? clean : coding.main)
    }

    /// Sends one frame that is already an Opus payload of the configured codec settings (a file encoded
    /// once and replayed, as the load generator does), skipping the encoder. Dropped like `sendAudio`
    /// until media can flow; muting does not apply (the caller chose the payload).
    public func sendEncodedAudio(_ payload: UnsafeRawBufferPointer, at now: Instant) {
        guard !isClosed, srtp != nil, mediaPath != nil, canSend, !payload.isEmpty else { return }
        sendPayload(payload, at: now)
    }

    /// RTP header + payload, protected and queued (DTX frames only advance the timestamp).
    func sendPayload(_ payload: UnsafeRawBufferPointer, at now: Instant) {
        guard srtp != nil, mediaPath != nil else { return }
        let encoded = payload.count
        if encoder.settings.dtx,
            OpusRTPPayload.isDiscontinuousTransmissionFrame(byteCount: encoded)
        {
            outgoing.skipFrame(samples: timestampIncrement)
            return
        }
        sendPacket(header: outgoing.makeHeader(samples: timestampIncrement), payload: payload, at: now)
    }

    /// Protects and queues one packet of our stream (audio or telephone-event).
    func sendPacket(header: RTPHeader, payload: UnsafeRawBufferPointer, at now: Instant) {
        guard let srtp, let path = mediaPath else { return }
        let encoded = payload.count
        let length = packetBuffer.withUnsafeMutableBytes { buffer -> Int? in
            guard let written = try? header.write(payload: payload, into: buffer) else { return nil }
            return try? srtp.protectRTP(buffer, length: written)
        }
        guard let length else { return }
        outgoing.recordSent(headerBytes: header.wireCount, payloadBytes: encoded)
        sentSinceReport = true
        lastSendAt = now
        transmit(packetBuffer[0..<length], from: path.local, to: path.remote, at: now)
    }

    /// Samples in 20 ms of playout (960 at the default 48 kHz `playoutSampleRate`).
    public var playoutFrameSamples: Int { 2 * jitter.configuration.frameSamples }

    /// Plays 20 ms (`playoutFrameSamples`) of received audio into `output`: silence before media and after
    /// `flushPlayout`.
    public func pullPlayout(into output: UnsafeMutableBufferPointer<Int16>, at now: Instant) {
        let half = jitter.configuration.frameSamples
        guard output.count == 2 * half else {
            output.update(repeating: 0)
            return
        }
        jitter.pull(at: now, into: UnsafeMutableBufferPointer(rebasing: output[0..<half]))
        jitter.pull(at: now, into: UnsafeMutableBufferPointer(rebasing: output[half...]))
    }

    // MARK: Receiving

    /// The shell's allocation-free entry for a datagram in its reused receive buffer (valid during the
    /// call only): RTP is copied straight into the endpoint's buffer; STUN, DTLS and RTCP are copied out.
    public func receive(
        _ datagram: UnsafeRawBufferPointer, from: TransportAddress, to: TransportAddress, at now: Instant
    ) {
        guard !isClosed else { return }
        if DatagramKind.classify(datagram) == .rtp {
            receiveRTP(datagram, at: now)
        } else {
            receive(Array(datagram), from: from, to: to, at: now)
        }
    }

    func receive(_ bytes: [UInt8], from: TransportAddress, to: TransportAddress, at now: Instant) {
        if !relays.isEmpty, receiveFromRelay(bytes, from: from, to: to, at: now) { return }
        switch DatagramKind.classify(bytes) {
        case .stun:
            ice.handle(.datagram(bytes: bytes, from: from, to: to), at: now)
            pumpICE(at: now)
        case .dtls:
            guard let dtls else { return }
            if selectedPair == nil { dtlsPeer = (to, from) }
            try? dtls.handle(.datagram(bytes), at: now)  // malformed records are dropped; the session goes on
            pumpDTLS(at: now)
        case .rtp:
            bytes.withUnsafeBytes { receiveRTP($0, at: now) }
        case .rtcp:
            receiveRTCP(bytes, at: now)
        case .zrtp, .turnChannel, .unknown:
            break
        }
    }

    private func receiveRTP(_ datagram: UnsafeRawBufferPointer, at now: Instant) {
        guard let srtp, datagram.count <= receiveBuffer.count else { return }
        let length = receiveBuffer.withUnsafeMutableBytes { buffer -> Int? in
            buffer.copyMemory(from: datagram)
            return try? srtp.unprotectRTP(buffer, length: datagram.count)
        }
        guard let length, length <= datagram.count else { return }  // unprotecting only shortens
        // Parsed through a buffer pointer: field reads without array bounds checks or retains.
        receiveBuffer.withUnsafeBytes { buffer in
            guard let packet = try? RTPPacketView(parsing: UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
            else { return }
            deliver(packet, at: now)
        }
    }

    /// Counts a parsed, unprotected RTP packet and hands its payload to the jitter buffer.
    private func deliver(_ packet: RTPPacketView<UnsafeRawBufferPointer>, at now: Instant) {
        noteMedia(at: now)
        if remoteSSRC != packet.ssrc {
            remoteSSRC = packet.ssrc
            receiveStatistics = RTPReceiveStatistics()
        }
        let outcome = receiveStatistics.record(
            sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, payloadBytes: packet.payload.count,
            headerBytes: packet.headerLength + packet.paddingCount, at: now)
        if configuration.earlyLossReports, !lastReportShowedLoss, receiveStatistics.packetsLostSinceReport > 0 {
            // Missing counts a gap only once reordering could have filled it (`ReorderDepth`); one packet interval
            // more lets a packet just beyond that arrive and be netted out before the report goes.
            _ = rtcp.requestEarlyReport(at: now + .milliseconds(20))
        }
        guard outcome.isDeliverable || outcome == .probation, !packet.payload.isEmpty else { return }
        if let eventType = telephoneEventPayloadType, packet.payloadType == eventType {
            // RFC 4733 DTMF shares the stream's sequence numbers (counted above) but is no audio.
            guard let event = try? TelephoneEvent(parsing: UnsafeRawBufferPointer(rebasing: packet.payload)) else {
                return
            }
            telephoneEvents.receive(event, timestamp: packet.timestamp, at: now) { emit(.dtmfReceived($0)) }
            return
        }
        UnsafeRawBufferPointer(rebasing: packet.payload).withMemoryRebound(to: UInt8.self) { payload in
            jitter.insert(
                payload: payload, timestamp: packet.timestamp, ssrc: packet.ssrc, marker: packet.marker, arrival: now,
                at: now)
        }
    }

    private func receiveRTCP(_ bytes: [UInt8], at now: Instant) {
        guard let srtp else { return }
        var packet = bytes
        guard (try? srtp.unprotectRTCP(&packet)) != nil, let parsed = try? RTCPCompound.parse(packet) else { return }
        noteMedia(at: now)
        rtcp.didReceive(packetSize: packet.count)
        for item in parsed {
            switch item {
            case .senderReport(let report):
                if remoteSSRC == nil || remoteSSRC == report.ssrc {
                    receiveStatistics.recordSenderReport(ntpTimestamp: report.ntpTimestamp, at: now)
                }
                take(report.reports, at: now)
            case .receiverReport(let report):
                take(report.reports, at: now)
            case .goodbye:
                if !byeReceived {
                    byeReceived = true
                    emit(.remoteBye)
                }
            case .sourceDescription:
                break
            }
        }
    }

    /// Report blocks about our stream: RTT, the far end's loss and jitter, and the encoder's loss hint.
    private func take(_ blocks: [RTCPReportBlock], at now: Instant) {
        for block in blocks where block.ssrc == outgoing.ssrc {
            remoteInbound.record(block, roundTripTime: block.roundTripTime(arrival: NTPTimestamp(instant: now)))
            guard configuration.pinnedLossHintPercent == nil else { continue }
            if lossHint.record(fractionLost: block.fractionLost), senderPolicy.forwardErrorCorrection {
                lossHintChanged()
            }
        }
    }

    // MARK: RTCP reports

    /// Sends SR (if we sent since the last report) or RR, SDES CNAME, and BYE when hanging up.
    func sendReport(at now: Instant, goodbye: Bool) {
        guard let srtp, let path = mediaPath else {
            if !goodbye { rtcp.didSend(packetSize: 0, at: now) }
            return
        }
        var blocks: [RTCPReportBlock] = []
        if let remoteSSRC, receiveStatistics.packetsReceived > 0 {
            blocks.append(receiveStatistics.makeReportBlock(ssrc: remoteSSRC, at: now))
        }
        lastReportShowedLoss = blocks.contains { $0.fractionLost > 0 }
        var packets: [RTCPPacket] = []
        if sentSinceReport, let lastTimestamp = outgoing.lastTimestampSent, let lastSendAt {
            let elapsed = UInt32(truncatingIfNeeded: max(0, (now - lastSendAt).totalNanoseconds) * 48 / 1_000_000)
            packets.append(
                .senderReport(
                    RTCPSenderReport(
                        ssrc: outgoing.ssrc, ntpTimestamp: NTPTimestamp(instant: now),
                        rtpTimestamp: lastTimestamp &+ elapsed,
                        packetCount: UInt32(truncatingIfNeeded: outgoing.packetsSent),
                        octetCount: UInt32(truncatingIfNeeded: outgoing.payloadBytesSent), reports: blocks)))
        } else {
            packets.append(.receiverReport(RTCPReceiverReport(ssrc: outgoing.ssrc, reports: blocks)))
        }
        packets.append(.sourceDescription(RTCPSourceDescription(ssrc: outgoing.ssrc, cname: configuration.cname)))
        if goodbye { packets.append(.goodbye(RTCPGoodbye(ssrcs: [outgoing.ssrc], reason: "hang-up"))) }
        var datagram = RTCPCompound.serialize(packets)
        let plainSize = datagram.count
        guard (try? srtp.protectRTCP(&datagram)) != nil else { return }
        sentSinceReport = false
        rtcp.weSent = outgoing.packetsSent > 0
        rtcp.didSend(packetSize: plainSize, at: now)
        send(datagram, from: path.local, to: path.remote, at: now)
    }

    // MARK: Statistics

    /// A snapshot of the W3C statistics: RTP in/out, jitter buffer, far-end reports (RTT), SRTP counters.
    public var stats: MediaStats {
        var stats = MediaStats()
        stats.inboundRtp.ssrc = remoteSSRC
        stats.inboundRtp.update(from: receiveStatistics)
        let playout = jitter.statistics
        stats.inboundRtp.packetsDiscarded = playout.packetsDiscarded
        stats.inboundRtp.fecPacketsReceived = playout.fecPacketsReceived
        stats.inboundRtp.jitterBufferDelay = playout.jitterBufferDelay
        stats.inboundRtp.jitterBufferTargetDelay = playout.jitterBufferTargetDelay
        stats.inboundRtp.jitterBufferEmittedCount = playout.jitterBufferEmittedCount
        if playout.jitterBufferEmittedCount > 0 { stats.inboundRtp.targetDelayParts = jitter.targetParts }
        stats.inboundRtp.totalSamplesReceived = playout.totalSamplesReceived
        stats.inboundRtp.concealedSamples = playout.concealedSamples
        stats.inboundRtp.silentConcealedSamples = playout.silentConcealedSamples
        stats.inboundRtp.concealmentEvents = playout.concealmentEvents
        stats.inboundRtp.insertedSamplesForDeceleration = playout.insertedSamplesForDeceleration
        stats.inboundRtp.removedSamplesForAcceleration = playout.removedSamplesForAcceleration
        stats.inboundRtp.totalSamplesDuration =
            Double(playout.totalSamplesReceived) / Double(jitter.configuration.sampleRate)
        stats.outboundRtp.update(from: outgoing)
        stats.remoteInboundRtp = remoteInbound
        if let srtp { stats.srtp = srtp.stats }
        if let selectedPair {
            stats.selectedCandidatePair = CandidatePairStats(
                localCandidateType: selectedPair.localCandidate.kind.rawValue,
                remoteCandidateType: selectedPair.remoteCandidate.kind.rawValue,
                relayProtocol: selectedPair.localCandidate.kind == .relay
                    ? relayProtocol(of: selectedPair.local)?.rawValue : nil)
        }
        return stats
    }
}
