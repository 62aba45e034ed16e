// Virtual-time tests of the adaptive jitter buffer's playout operations and edge cases.
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct JitterBufferTests {
    @Test func cleanStreamPlaysEveryPacketWithLowDelay() {
        // The adaptive target's own delay (the start delay's is JitterStartDelayTests').
        let packets = (0..<250).map { TracePacket(index: $0, arrivalMs: Double($0) * 20 + 30) }
        let run = runTrace(packets, durationMs: 5000, configuration: .withoutStartDelay)
        #expect(run.statistics.concealedSamples == 0)
        #expect(run.statistics.packetsDiscarded == 0)
        #expect(run.statistics.jitterBufferEmittedCount >= 240 * 960)
        #expect(run.statistics.meanDelayMilliseconds <= 40)
        // The tone comes out intact: every played period matches the source.
        let start = run.firstAudibleFrame(atOrAfter: 0)!
        let period = measuredPeriod(run.output[(start * 480 + 960)..<(start * 480 + 48000)])!
        #expect(abs(period - 48000 / 190) < 0.5)
    }

    @Test func fivePercentLossIsRecoveredFromFEC() {
        var random = SeededRandom(seed: 7)
        let packets = (0..<500).map { k in
            TracePacket(index: k, arrivalMs: random.unit() < 0.05 ? nil : Double(k) * 20 + 30 + random.unit() * 10)
        }
        let lost = packets.filter { $0.arrivalMs == nil }.count
        let run = runTrace(packets, durationMs: 10_200)
        #expect(lost > 10)
        #expect(run.statistics.fecPacketsRecovered >= UInt64(lost) / 2)
        #expect(run.operations.contains(.fecRecovery))
        #expect(run.statistics.fecPacketsReceived == UInt64(500 - lost))
    }

    @Test func jitterStepRaisesTargetWithinASecond() {
        var random = SeededRandom(seed: 3)
        let packets = (0..<400).map { k in
            let jitter = k < 200 ? random.unit() * 4 : random.unit() * 80
            return TracePacket(index: k, arrivalMs: Double(k) * 20 + 30 + jitter)
        }
        let run = runTrace(packets, durationMs: 8000, configuration: .withoutStartDelay)  // the step is in its hold
        let before = run.targetMs[395]  // just before the step at 4 s (+30 ms)
        let after = run.targetMs[403 + 100]  // one second after the step
        #expect(before < 40)
        #expect(after >= before + 40)
    }

    @Test func targetShrinksSlowlyAfterJitterStops() {
        var random = SeededRandom(seed: 5)
        let packets = (0..<600).map { k in
            TracePacket(index: k, arrivalMs: Double(k) * 20 + 30 + (k < 300 ? random.unit() * 80 : random.unit() * 2))
        }
        let run = runTrace(packets, durationMs: 12_000)
        let peak = run.targetMs[595]
        #expect(run.targetMs[603 + 200] > (peak + 20) / 2)  // 2 s later still well above a clean target
    }

    @Test func outageGivesOneConcealmentEventAndQuickResume() {
        let packets = (0..<300).map { k in
            TracePacket(index: k, arrivalMs: (100..<200).contains(k) ? nil : Double(k) * 20 + 30)
        }
        let run = runTrace(packets, durationMs: 6000)
        #expect(run.statistics.concealmentEvents == 1)
        #expect(run.statistics.interruptionCount == 1)
        #expect(run.statistics.silentConcealedSamples > 0)
        // Audible PLC is bounded (the fake conceals with silence, so check the counters instead of the audio).
        #expect(run.statistics.concealedSamples - run.statistics.silentConcealedSamples <= 100 * 48)
        let back = 200.0 * 20 + 30
        let resumed = run.firstAudibleFrame(atOrAfter: back)!
        #expect(Double(resumed) * 10 - back <= 60)
    }

    @Test func isolatedLossWithoutFECIsConcealedThenMerged() {
        let packets = (0..<100).map { k in
            TracePacket(
                index: k, arrivalMs: k == 50 ? nil : Double(k) * 20 + 30,
                payload: FakeDecoder.payload(index: k, fec: false))
        }
        let run = runTrace(packets, durationMs: 2000)
        #expect(run.statistics.fecPacketsRecovered == 0)
        #expect(run.statistics.concealmentEvents == 1)
        #expect(run.statistics.concealedSamples >= 960)
        let expand = run.operations.firstIndex(of: .expand)!
        #expect(run.operations[expand...].contains(.merge))
    }

    /// Where packet `index`'s decoded samples appear whole and unchanged in `output` at or after `from` (nil:
    /// nowhere). A tone repeats, so the search starts near where the packet should play.
    func verbatimStart(ofPacket index: Int, in output: [Int16], from: Int = 0, frequency: Double) -> Int? {
        let n = FakeDecoder.packetSamples
        var decoder = FakeDecoder()
        decoder.frequency = frequency
        let packet = (0..<n).map { decoder.tone(index * n + $0) }
        guard output.count - n >= from else { return nil }
        return (from...(output.count - n)).first { start in
            output[start] == packet[0] && output[start..<(start + n)].elementsEqual(packet)
        }
    }

    @Test func theDecodersOwnConcealmentJoinsTheNextPacketWithoutAFade() {
        let frequency = 190.0
        let packets = (0..<100).map { k in
            TracePacket(
                index: k, arrivalMs: k == 50 ? nil : Double(k) * 20 + 30,
                payload: FakeDecoder.payload(index: k, fec: false))
        }
        let run = runTrace(packets, durationMs: 2000, frequency: frequency)
        #expect(run.statistics.concealmentEvents == 1)
        #expect(run.statistics.silentConcealedSamples == 0)
        // libopus fades its PLC into the next frame itself: the packet after the loss plays as decoded, one
        // concealed packet after the one before the loss.
        let before = verbatimStart(ofPacket: 49, in: run.output, from: 48 * 960, frequency: frequency)
        #expect(before != nil)
        let after = before.flatMap { verbatimStart(ofPacket: 51, in: run.output, from: $0, frequency: frequency) }
        #expect(after.map { $0 - before! == 2 * FakeDecoder.packetSamples } == true)
    }

    @Test func audioAfterSilentConcealmentIsStillFadedIn() {
        let frequency = 191.7  // no two of the packets after the outage sound alike
        let packets = (0..<300).map { k in
            TracePacket(index: k, arrivalMs: (100..<200).contains(k) ? nil : Double(k) * 20 + 30)
        }
        var configuration = JitterBufferConfiguration()
        configuration.maximumStretchRatio = 0  // packets after the restart play as decoded, unstretched
        let run = runTrace(packets, durationMs: 6000, configuration: configuration, frequency: frequency)
        #expect(run.statistics.silentConcealedSamples > 0)
        // The decoder's state is of audio from before the silence: the first packet back is cross-faded from the
        // last audio played, the next is not.
        let resumed = 200 * 960  // the audio before the outage (packet 99) plays until about 100 * 960
        let next = verbatimStart(ofPacket: 201, in: run.output, from: resumed, frequency: frequency)
        #expect(next != nil)
        guard let next else { return }
        let n = FakeDecoder.packetSamples
        var decoder = FakeDecoder()
        decoder.frequency = frequency
        let played = Array(run.output[(next - n)..<next])
        let decoded = (0..<n).map { decoder.tone(200 * n + $0) }
        #expect(played[480...] == decoded[480...])  // packet 200 plays before 201…
        #expect(played[..<240] != decoded[..<240])  // …cross-faded in over its first 5 ms
    }

    @Test func reorderedPacketsAreAllPlayed() {
        var packets = (0..<200).map { TracePacket(index: $0, arrivalMs: Double($0) * 20 + 30) }
        for k in stride(from: 10, to: 190, by: 10) {  // packet k arrives 15 ms after k+1
            packets[k].arrivalMs = packets[k + 1].arrivalMs! + 15
        }
        let run = runTrace(packets, durationMs: 4000)
        // The first two reorderings come before the buffer has learnt them (two late arrivals close together
        // switch it from the loss hold to the larger reorder hold); after that none is lost.
        #expect(run.statistics.packetsDiscarded <= 2)
        #expect(!run.operations[100...].contains(.expand))
        #expect(run.statistics.jitterBufferEmittedCount >= 195 * 960)
    }

    @Test func duplicatesAreDiscarded() {
        var packets = (0..<100).map { TracePacket(index: $0, arrivalMs: Double($0) * 20 + 30) }
        packets += (0..<100).map { TracePacket(index: $0, arrivalMs: Double($0) * 20 + 35) }
        let run = runTrace(packets, durationMs: 2020)
        #expect(run.statistics.packetsDiscarded == 100)
        #expect(run.statistics.concealedSamples == 0)
    }

    @Test func latePacketIsDiscardedAndCounted() {
        var packets = (0..<100).map { TracePacket(index: $0, arrivalMs: Double($0) * 20 + 30) }
        packets[50].arrivalMs = 50 * 20 + 30 + 600
        let run = runTrace(packets, durationMs: 2500)
        #expect(run.statistics.packetsDiscarded == 1)
        #expect(run.statistics.fecPacketsRecovered == 1 || run.statistics.concealedSamples > 0)
    }

    @Test func sequenceAndTimestampWrapAroundPlayCleanly() {
        let packets = (0..<200).map {
            TracePacket(
                index: $0, arrivalMs: Double($0) * 20 + 30, timestampOffset: UInt32.max - 960 * 100 + 1,
                sequenceOffset: 65_436)
        }
        let run = runTrace(packets, durationMs: 4000)
        #expect(run.statistics.concealedSamples == 0)
        #expect(run.statistics.packetsDiscarded == 0)
        #expect(run.buffer.decoder.resets == 0)
    }

    @Test func ssrcChangeResetsAndPlaysTheNewStream() {
        let packets = (0..<200).map { k in
            TracePacket(
                index: k, arrivalMs: Double(k) * 20 + 30, ssrc: k < 100 ? 1 : 2,
                timestampOffset: k < 100 ? 0 : 123_456_789)
        }
        let run = runTrace(packets, durationMs: 4200)
        #expect(run.buffer.decoder.resets == 1)
        #expect(run.statistics.jitterBufferEmittedCount >= 190 * 960)
        #expect(run.firstAudibleFrame(atOrAfter: 100 * 20 + 100) != nil)
    }

    @Test func timestampJumpWithSameSSRCResets() {
        let packets = (0..<200).map { k in
            TracePacket(index: k, arrivalMs: Double(k) * 20 + 30, timestampOffset: k < 100 ? 0 : 48000 * 60)
        }
        let run = runTrace(packets, durationMs: 4200)
        #expect(run.buffer.decoder.resets == 1)
        #expect(run.statistics.jitterBufferEmittedCount >= 190 * 960)
    }

    @Test func dtxGapIsComfortSilenceNotLoss() {
        // Talk for 1 s, a DTX packet, nothing for 1 s, then a new talkspurt with the marker bit.
        var packets = (0..<50).map { TracePacket(index: $0, arrivalMs: Double($0) * 20 + 30) }
        packets.append(TracePacket(index: 50, arrivalMs: 50 * 20 + 30, payload: [0x08]))
        packets += (100..<150).map { TracePacket(index: $0, arrivalMs: Double($0) * 20 + 30, marker: $0 == 100) }
        let run = runTrace(packets, durationMs: 3000)
        #expect(run.statistics.concealedSamples == 0)
        #expect(run.operations.contains(.silence))
        #expect(run.firstAudibleFrame(atOrAfter: 100 * 20 + 30) != nil)
    }

    @Test func overflowFlushesToTarget() {
        // A stalled network delivers 5 s of audio at once.
        var packets = (0..<50).map { TracePacket(index: $0, arrivalMs: Double($0) * 20 + 30) }
        packets += (50..<300).map { TracePacket(index: $0, arrivalMs: 6030) }
        let run = runTrace(packets, durationMs: 7000)
        #expect(run.statistics.bufferFlushes >= 1)
        #expect(run.statistics.packetsDiscarded > 100)
        #expect(run.buffer.currentLevel < .milliseconds(500))
    }

    @Test func flushDropsBufferedAudioAtOnce() {
        let packets = (0..<100).map { TracePacket(index: $0, arrivalMs: Double($0) * 20 + 30) }
        let run = runTrace(packets, durationMs: 2200) { pull, buffer in
            if pull == 100 { buffer.flush() }
        }
        #expect(run.statistics.bufferFlushes == 1)
        // The frame pulled right after the flush is silence, not buffered audio.
        #expect(run.frames[100].allSatisfy { $0 == 0 })
        #expect(run.operations[100] == .silence)
    }

    @Test func delaySpikeIsSkippedByDefault() {
        let packets = (0..<400).map { k in
            TracePacket(index: k, arrivalMs: (100..<110).contains(k) ? 110 * 20 + 30 : Double(k) * 20 + 30)
        }
        let run = runTrace(packets, durationMs: 7900)
        #expect(run.statistics.packetsDiscarded >= 5)
        #expect(run.statistics.concealmentEvents == 1)
        #expect(run.buffer.currentLevel < .milliseconds(80))
    }

    @Test func delaySpikeIsAbsorbedWithStallingThenDrainedByAcceleration() {
        // A 200 ms spike: packets 100...109 all arrive together when the spike ends.
        let packets = (0..<400).map { k in
            TracePacket(index: k, arrivalMs: (100..<110).contains(k) ? 110 * 20 + 30 : Double(k) * 20 + 30)
        }
        var configuration = JitterBufferConfiguration()
        configuration.stallLimit = .milliseconds(200)
        let run = runTrace(packets, durationMs: 8200, configuration: configuration)
        #expect(run.statistics.removedSamplesForAcceleration > 0)
        #expect(run.statistics.packetsDiscarded == 0)
        #expect(run.buffer.currentLevel < .milliseconds(80))
    }

    @Test func risingTargetIsReachedByPreemptiveExpand() {
        var random = SeededRandom(seed: 11)
        let packets = (0..<300).map { k in
            TracePacket(index: k, arrivalMs: Double(k) * 20 + 30 + (k < 100 ? 0 : random.unit() * 100))
        }
        let run = runTrace(packets, durationMs: 6200)
        #expect(run.statistics.insertedSamplesForDeceleration > 0)
        #expect(run.operations.contains(.preemptiveExpand))
    }

    @Test func stretchedOutputKeepsThePitch() {
        let packets = (0..<400).map { k in
            TracePacket(index: k, arrivalMs: (100..<110).contains(k) ? 110 * 20 + 30 : Double(k) * 20 + 30)
        }
        var configuration = JitterBufferConfiguration()
        configuration.stallLimit = .milliseconds(200)
        for frequency in [110.0, 190.0, 310.0] {
            let run = runTrace(packets, durationMs: 8200, configuration: configuration, frequency: frequency)
            let expected = 48000 / frequency
            var checked = 0
            for (i, op) in run.operations.enumerated() where op == .accelerate || op == .preemptiveExpand {
                guard i + 2 < run.frames.count else { continue }
                let period = measuredPeriod(run.frames[i...(i + 2)].flatMap { $0 }[...])!
                #expect(abs(period - expected) / expected < 0.01, "f=\(frequency) frame \(i)")
                checked += 1
            }
            #expect(checked > 0)
        }
    }

    @Test func zeroStretchRatioTurnsTimeScaleModificationOff() {
        // Both a rising target (jitter after a quiet start) and a surplus (a burst after a stall) would stretch.
        var random = SeededRandom(seed: 11)
        var packets = (0..<300).map { k in
            TracePacket(index: k, arrivalMs: Double(k) * 20 + 30 + (k < 100 ? 0 : random.unit() * 100))
        }
        for k in 200..<210 { packets[k].arrivalMs = 210 * 20 + 30 }
        var configuration = JitterBufferConfiguration()
        let stretching = runTrace(packets, durationMs: 6200, configuration: configuration)
        #expect(stretching.operations.contains(.preemptiveExpand) || stretching.operations.contains(.accelerate))
        configuration.maximumStretchRatio = 0
        let run = runTrace(packets, durationMs: 6200, configuration: configuration)
        #expect(!run.operations.contains(.accelerate))
        #expect(!run.operations.contains(.preemptiveExpand))
        #expect(run.statistics.insertedSamplesForDeceleration == 0)
        #expect(run.statistics.removedSamplesForAcceleration == 0)
        #expect(run.statistics.jitterBufferEmittedCount >= 250 * 960)
    }

    @Test func payloadInsertedFromReusedMemoryIsCopied() {
        // The receive path hands over its reused receive buffer; the buffer must keep its own copy.
        var random = SeededRandom(seed: 5)
        let packets = (0..<200).map { k in
            TracePacket(index: k, arrivalMs: random.unit() < 0.05 ? nil : Double(k) * 20 + 30 + random.unit() * 40)
        }
        let reference = runTrace(packets, durationMs: 4200)
        var buffer = JitterBuffer(decoder: FakeDecoder())
        var receiveBuffer = [UInt8](repeating: 0, count: 64)
        let arriving = packets.filter { $0.arrivalMs != nil }.sorted { $0.arrivalMs! < $1.arrivalMs! }
        var next = 0
        var frames: [[Int16]] = []
        for pull in 0...420 {
            while next < arriving.count, arriving[next].arrivalMs! <= Double(pull * 10) {
                let p = arriving[next]
                let arrival = Instant(nanoseconds: Int64(p.arrivalMs! * 1e6))
                let payload = FakeDecoder.payload(index: p.index)
                receiveBuffer.replaceSubrange(0..<payload.count, with: payload)
                receiveBuffer[0..<payload.count].withUnsafeBufferPointer { bytes in
                    buffer.insert(
                        payload: bytes, timestamp: UInt32(p.index * 960), ssrc: 1, marker: false, arrival: arrival,
                        at: arrival)
                }
                for i in receiveBuffer.indices { receiveBuffer[i] = 0xEE }  // the next datagram overwrites it
                next += 1
            }
            frames.append(buffer.pull(at: .milliseconds(Int64(pull * 10))).samples)
        }
        #expect(frames == reference.frames)
        #expect(buffer.statistics.concealedSamples == reference.statistics.concealedSamples)
    }
}
