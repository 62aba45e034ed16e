import Foundation
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct StatsTests {
    @Test func encodesW3CNamesAndRoundTrips() throws {
        var stats = MediaStats()
        stats.inboundRtp.packetsReceived = 10
        stats.inboundRtp.jitterBufferDelay = 1.5
        stats.outboundRtp.packetsSent = 7
        stats.remoteInboundRtp.roundTripTime = 0.05
        stats.srtp.authenticationFailures = 2
        let data = try JSONEncoder().encode(stats)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let inbound = try #require(object["inboundRtp"] as? [String: Any])
        for name in [
            "packetsReceived", "packetsLost", "jitter", "bytesReceived", "headerBytesReceived", "packetsDiscarded",
            "fecPacketsReceived", "fecPacketsDiscarded", "jitterBufferDelay", "jitterBufferTargetDelay",
            "jitterBufferMinimumDelay", "jitterBufferEmittedCount", "totalSamplesReceived", "concealedSamples",
            "silentConcealedSamples", "concealmentEvents", "insertedSamplesForDeceleration",
            "removedSamplesForAcceleration", "totalAudioEnergy", "totalSamplesDuration",
        ] {
            #expect(inbound[name] != nil, "missing \(name)")
        }
        #expect(inbound["packetsReceived"] as? Int == 10)
        let outbound = try #require(object["outboundRtp"] as? [String: Any])
        for name in ["packetsSent", "bytesSent", "headerBytesSent", "retransmittedPacketsSent"] {
            #expect(outbound[name] != nil, "missing \(name)")
        }
        let remote = try #require(object["remoteInboundRtp"] as? [String: Any])
        #expect(remote["roundTripTime"] as? Double == 0.05)
        #expect(remote["totalRoundTripTime"] != nil && remote["roundTripTimeMeasurements"] != nil)
        #expect(try JSONDecoder().decode(MediaStats.self, from: data) == stats)
        #expect(stats.srtpAuthenticationFailures == 2)
    }

    @Test func fillsFromStreamsAndReports() {
        var receive = RTPReceiveStatistics()
        for s in UInt16(0)..<10 where s != 5 {
            _ = receive.record(
                sequenceNumber: s, timestamp: UInt32(s) * 960, payloadBytes: 100, headerBytes: 12,
                at: .milliseconds(Int64(s) * 20))
        }
        var inbound = InboundRTPStats()
        inbound.update(from: receive, unixTimeOfLastPacket: 1_700_000_000_000)
        #expect(inbound.packetsReceived == 8)  // the first packet is probation (RFC 3550 A.1)
        #expect(inbound.packetsLost == 1)
        #expect(inbound.bytesReceived == 800 && inbound.headerBytesReceived == 96)
        #expect(inbound.lastPacketReceivedTimestamp == 1_700_000_000_000)

        var stream = RTPOutgoingStream(ssrc: 9, payloadType: 111, initialSequenceNumber: 0, initialTimestamp: 0)
        stream.recordSent(headerBytes: 12, payloadBytes: 90)
        var outbound = OutboundRTPStats()
        outbound.update(from: stream)
        #expect(outbound.ssrc == 9 && outbound.packetsSent == 1 && outbound.bytesSent == 90)

        var remote = RemoteInboundRTPStats()
        let block = RTCPReportBlock(
            ssrc: 9, fractionLost: 64, cumulativeLost: 3, extendedHighestSequence: 100, jitter: 480,
            lastSenderReport: 1, delaySinceLastSenderReport: 0)
        remote.record(block, roundTripTime: .milliseconds(40))
        remote.record(block, roundTripTime: .milliseconds(60))
        remote.record(block, roundTripTime: nil)
        #expect(remote.fractionLost == 0.25)
        #expect(remote.jitter == 0.01)
        #expect(remote.roundTripTimeMeasurements == 2)
        #expect(abs(remote.totalRoundTripTime - 0.1) < 1e-9)
        #expect(remote.roundTripTime == 0.06)
    }
}
