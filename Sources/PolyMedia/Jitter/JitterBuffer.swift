// The adaptive jitter buffer: packets in with their arrival time, fixed-size audio frames out on request.
//
// Sans-IO: no clock or thread; the caller passes time in. Each `pull` plays from a queue of decoded audio and,
// when that runs short, takes one playout step: decode the expected packet (normal, or merge after
// concealment, or time-stretched by one pitch period when the buffer is above or below its target), recover
// it from the next packet's FEC, conceal it, or play silence (before the first packet, in DTX, after an outage).
import PolyCore

// Not nested in the generic buffer: a nested type is generic too, and comparing its values would look its
// metadata up at run time on every use (the buffer's methods run unspecialised when called from other modules).
private enum PlayoutMode: Equatable {
    case playing
    case idle(IdleReason)

    enum IdleReason: Equatable { case start, dtx, outage, flushed }
}

/// Adaptive jitter buffer and playout for one incoming audio stream.
public struct JitterBuffer<Decoder: PlayoutDecoder> {
    public let configuration: JitterBufferConfiguration
    /// Cumulative statistics (W3C names).
    public private(set) var statistics = JitterBufferStatistics()
    /// The operation that produced the most recent block of audio.
    public private(set) var lastOperation: PlayoutOperation = .silence

    private var estimator = DelayEstimator()
    private var lateLoss = LateLossMonitor()
    private var fecShortfall = FECShortfallMonitor()
    /// Whether the newest packet carried in-band FEC (its sender codes FEC, and the frame before it was voice).
    private var streamCarriesFEC = false
    private var store: PacketStore
    private var queue: SampleQueue
    private let history = ScratchBuffer(count: 960)
    /// Opus's longest packet (120 ms) at the output rate, and that plus room for a stretch (which adds at most
    /// `TimeStretcher.maximumLag`; twice that is kept). Sized by the rate: a bridge decoding to 16 kHz holds a third.
    private let decodeScratch: ScratchBuffer
    private let stretchScratch: ScratchBuffer
    /// The packet after a lone loss, decoded ahead (`GapInterpolation`).
    private let aheadScratch: ScratchBuffer
    private var mode = PlayoutMode.idle(.start)
    private var playPosition: Int64 = 0
    private var decodedEnd: Int64?
    private var discardBefore: Int64?
    /// The highest timestamp seen, in output samples, and as sent (unwrapping works in the RTP clock).
    private var highestTimestamp: Int64?
    private var highestRTPTimestamp: UInt32 = 0
    /// RTP clock ticks per output sample (1 at 48 kHz; 3 when a 48 kHz RTP clock plays out at 16 kHz).
    private let ticksPerSample: Int64
    private var ssrc: UInt32?
    /// Samples per packet: the last decoded packet's, 20 ms until the first.
    private var packetSamples: Int
    private var lastWasDTX = false
    private var concealing = false
    /// Whether the audio decoded after this concealment must be cross-faded in (`emitDecoded`): not when only the
    /// decoder's own PLC or FEC filled the gap and decoding resumes at the packet's start, since libopus joins its
    /// concealment to the next frame itself (a second, synthetic fade only blurred the join); yes after silence, a
    /// flush or step-back, or a packet whose start was skipped, where the decoder's output jumps.
    private var joinNeedsFade = false
    private var concealRun = 0
    private var concealSound = 0
    private var stalled = 0
    private var filteredLevel = 0.0
    private var stretchBudget = 0.0
    /// The delay fell below the band and has not yet reached the target: pauses are expanded (`stretchIfNeeded`).
    private var growing = false
    private var start: StartDelay
    private var pauses: PauseDetector
    private var lastLoss: Instant?
    private var lastLate: Instant?
    private var reorderSeen: Instant?
    /// The last time a packet turned up after the buffer had run dry and concealed (part of) its slot: playout ran
    /// ahead of the arrivals, which lets the next underflow wait for its packet instead of skipping it.
    private var lastUnderflowLate: Instant?
    /// Extra target delay (samples) kept after waits for late packets, so the level control keeps the delay they
    /// added; `headroomSince` is when it was last raised (it lapses `underflowHold` later).
    private var headroomSamples = 0
    private var headroomSince: Instant?
    /// The media range the buffer concealed with nothing buffered and skipped (nil once audio was decoded after it):
    /// a packet arriving for it shows the buffer ran dry because playout is ahead, not because of loss.
    private var dryRange: Range<Int64>?
    /// Samples concealed while waiting for a late packet under that rule (they become headroom if it arrives).
    private var waitedForLate = 0
    /// Samples pulled at the latest pull time so far, and in the whole previous burst of pulls at one time (a shell
    /// playing 20 ms per clock tick pulls two 10 ms frames at once).
    private var burstSamples = 0
    private var lastBurstSamples = 0
    private var lastPull: Instant?
    private var now = Instant.zero
    private let limits: PlayoutLimits
    /// The decoder producing audio (exposed so callers can inspect or reuse it). Stored last: the fields before it
    /// keep fixed offsets whatever the decoder's size, which unspecialised code would otherwise look up.
    public private(set) var decoder: Decoder

    public init(decoder: Decoder, configuration: JitterBufferConfiguration = JitterBufferConfiguration()) {
        self.decoder = decoder
        self.configuration = configuration
        limits = PlayoutLimits(configuration)
        ticksPerSample = Int64(max(1, configuration.rtpClockRate / configuration.sampleRate))
        packetSamples = configuration.sampleRate / 50
        let longestPacket = configuration.sampleRate * 120 / 1000
        decodeScratch = ScratchBuffer(count: longestPacket)
        aheadScratch = ScratchBuffer(count: longestPacket)
        stretchScratch = ScratchBuffer(count: longestPacket + 2 * TimeStretcher.maximumLag)
        pauses = PauseDetector(sampleRate: configuration.sampleRate)
        start = StartDelay(
            floorMilliseconds: limits.startDelayMilliseconds, holdNanoseconds: limits.startDelayHoldNanoseconds)
        // 341 ms at any rate (16384 samples at 48 kHz): far more than a pull leaves queued (a frame, one decoded
        // packet and a stretch).
        queue = SampleQueue(capacity: 16384 * configuration.sampleRate / 48_000)
        // 256 bytes hold a 20 ms Opus packet up to 100 kbps; larger payloads enlarge the slots.
        store = PacketStore(capacity: configuration.maximumPackets + 1, slotBytes: 256)
    }

    // MARK: Public state

    /// The delay the buffer currently aims for.
    public var targetDelay: Duration { .nanoseconds(targetNanoseconds) }

    /// Audio buffered ahead of the playout point (decoded and still encoded), now.
    public var currentLevel: Duration {
        .microseconds(Int64(Double(levelSamples) * 1e6 / Double(configuration.sampleRate)))
    }

    /// Packets waiting to be decoded.
    public var bufferedPackets: Int { store.count }

    // MARK: Input

    /// Adds a received packet; `now` is its arrival time (normally `packet.arrival`).
    public mutating func insert(_ packet: JitterPacket, at now: Instant) {
        packet.payload.withUnsafeBufferPointer { payload in
            insert(
                payload: payload, timestamp: packet.timestamp, ssrc: packet.ssrc, marker: packet.marker,
                arrival: packet.arrival, at: now)
        }
    }

    /// Adds a received packet given by its RTP fields, without an owned copy of its payload: the buffer copies
    /// `payload` into storage it reuses, so the per-packet path allocates nothing. `now` is normally `arrival`.
    public mutating func insert(
        payload: UnsafeBufferPointer<UInt8>, timestamp rtpTimestamp: UInt32, ssrc: UInt32, marker: Bool,
        arrival: Instant, at now: Instant
    ) {
        self.now = max(self.now, now)
        start.noteArrival(at: self.now)
        if let current = self.ssrc, current != ssrc { resetStream() }
        self.ssrc = ssrc
        var timestamp = unwrap(rtpTimestamp)
        if let highest = highestTimestamp,
            abs(timestamp - highest) > limits.timestampJumpSamples
        {
            resetStream()
            timestamp = unwrap(rtpTimestamp)
        }
        let carriesFEC = decoder.carriesFEC(payload)
        if timestamp >= highestTimestamp ?? timestamp {
            highestTimestamp = timestamp
            highestRTPTimestamp = rtpTimestamp
            streamCarriesFEC = carriesFEC
        }
        if carriesFEC { statistics.fecPacketsReceived += 1 }
        if let dry = dryRange, timestamp < dry.upperBound, timestamp + Int64(packetSamples) > dry.lowerBound {
            lastUnderflowLate = now
        }
        let referenceShift = estimator.update(
            arrivalMs: arrival.milliseconds, mediaMs: Double(timestamp) * 1000 / Double(configuration.sampleRate))
        if referenceShift != 0 {
            // The floor and the level filter are delays measured from the reference too.
            lateLoss.shiftFloor(by: referenceShift)
            filteredLevel += referenceShift * Double(configuration.sampleRate) / 1000
        }

        let flushed = discardBefore.map { timestamp < $0 } ?? false
        var tooOld =
            flushed || (decodedEnd.map { timestamp < $0 } ?? false)
            || (mode == .playing && timestamp + Int64(packetSamples) <= playPosition)
        let index = store.insertionIndex(timestamp)
        let duplicate = index < store.count && store[index].timestamp == timestamp
        // Arrived after playout passed its start, and not decoded before (that would be a duplicate): late.
        let late =
            !flushed && !duplicate && mode == .playing && timestamp < playPosition
            && (decodedEnd.map { timestamp >= $0 } ?? true)
        if late, lateArrivalRaisesTarget(timestamp) { tooOld = false }
        if !duplicate { fecShortfall.arrival(timestamp: timestamp, atMs: now.milliseconds) }
        guard !tooOld, !duplicate else {
            statistics.packetsDiscarded += 1
            if tooOld, !flushed { noteLateArrival() }
            return
        }
        store.insert(timestamp: timestamp, arrival: arrival, marker: marker, payload: payload, at: index)
        if store.count > configuration.maximumPackets
            || levelSamples > limits.overflowSamples
        {
            flushToTarget()
        }
    }

    /// Drops all buffered audio at once (barge-in); packets already received for it are ignored if they arrive.
    public mutating func flush() {
        store.removeAll()
        queue.removeAll()
        if let highest = highestTimestamp { discardBefore = highest + Int64(packetSamples) }
        endConcealment()
        mode = .idle(.flushed)
        statistics.bufferFlushes += 1
    }

    // MARK: Output

    /// Plays one frame of `configuration.frameSamples` samples into `output` and says how it was made.
    @discardableResult
    public mutating func pull(at now: Instant, into output: UnsafeMutableBufferPointer<Int16>) -> PlayoutOperation {
        precondition(output.count == configuration.frameSamples, "pull needs exactly frameSamples samples")
        self.now = max(self.now, now)
        if lastPull != now {
            lastBurstSamples = burstSamples
            burstSamples = 0
            lastPull = now
        }
        burstSamples += output.count
        if mode == .playing {
            filteredLevel += 0.05 * (Double(playoutDelaySamples) - filteredLevel)
        }
        var steps = 0
        while queue.count < output.count && steps < 32 {
            lastOperation = produce()
            steps += 1
        }
        if queue.count < output.count { appendSilence(output.count - queue.count) }
        queue.read(into: output)
        statistics.totalSamplesReceived += UInt64(output.count)
        return lastOperation
    }

    /// Array convenience for `pull(at:into:)` (allocates; use the buffer form on the audio path).
    public mutating func pull(at now: Instant) -> (samples: [Int16], operation: PlayoutOperation) {
        var frame = [Int16](repeating: 0, count: configuration.frameSamples)
        let operation = frame.withUnsafeMutableBufferPointer { pull(at: now, into: $0) }
        return (frame, operation)
    }

    // MARK: Playout steps

    private mutating func produce() -> PlayoutOperation {
        switch mode {
        case .idle(let reason):
            if let first = store.first, readyToStart(first) {
                mode = .playing
                playPosition = first.timestamp
                stalled = 0
                filteredLevel = Double(playoutDelaySamples)
                return produce()
            }
            appendSilence(configuration.frameSamples)
            guard reason == .outage else { return .silence }
            countConcealment(configuration.frameSamples, silent: true)
            return .expand
        case .playing:
            return playStep()
        }
    }

    private mutating func playStep() -> PlayoutOperation {
        dropLatePackets()
        if let first = store.first, first.timestamp <= playPosition { return decodeFirst() }
        if lastWasDTX || store.first?.marker == true {
            // Discontinuous transmission: the sender was silent on purpose, so this is not loss.
            guard let next = store.first else {
                mode = .idle(.dtx)
                appendSilence(configuration.frameSamples)
                return .silence
            }
            let n = Int(min(Int64(configuration.frameSamples), next.timestamp - playPosition))
            appendSilence(n)
            playPosition += Int64(n)
            return .silence
        }
        if let next = store.first {
            // A gap with later audio already here: the packet is lost (or hopelessly late).
            lastLoss = now
            let gap = Int(next.timestamp - playPosition)
            if gap == packetSamples, let recovered = recoverFromFEC(next) { return recovered }
            if gap > packetSamples { noteConcealedWithoutNext() }
            // A lone loss is concealed in one piece that ends on the next packet's audio; a longer gap a frame at
            // a time (its last packet in one piece once the gap is down to it). A next packet carrying FEC went
            // the FEC path above; the blend improves CELT's PLC and leaves SILK's about as it was (docs/JITTER.md).
            let lone = gap == packetSamples
            conceal(lone ? gap : min(configuration.frameSamples, gap), advance: true, endingOn: lone ? next : nil)
            return .expand
        }
        // Nothing buffered: the packet is late or lost. Wait for it (concealing) up to the stall limit, or up to a
        // packet while packets have recently turned up just after running dry (playout runs ahead of them: a
        // shell pulling on a clock whose phase sits right at the arrivals); skipping would then conceal a part of
        // every packet for as long as the phase stays there.
        let n = configuration.frameSamples
        let underflowsRepeat = lastUnderflowLate.map { recent($0, within: limits.lateBurstNanoseconds) } ?? false
        let mayWait = underflowsRepeat && heldHeadroom + waitedForLate + n <= limits.maximumHeadroomSamples
        let waitLimit = mayWait ? max(limits.stallLimitSamples, packetSamples) : limits.stallLimitSamples
        let advance = stalled >= waitLimit
        noteConcealedWithoutNext()
        if advance {
            let start = dryRange.map { $0.upperBound == playPosition ? $0.lowerBound : playPosition } ?? playPosition
            dryRange = start..<(playPosition + Int64(n))
        } else if stalled >= limits.stallLimitSamples {
            waitedForLate += n
        }
        conceal(n, advance: advance)
        if !advance { stalled += n }
        if concealRun >= limits.outageSamples { mode = .idle(.outage) }
        return .expand
    }

    private mutating func decodeFirst() -> PlayoutOperation {
        guard let stored = store.first else { return .expand }
        let decoded: Int
        do {
            defer { store.removeFirst() }
            decoded = try store.withPayload(of: stored) { payload in
                try decoder.decode(payload, into: decodeScratch.samples)
            }
        } catch {
            statistics.packetsDiscarded += 1
            conceal(min(configuration.frameSamples, packetSamples), advance: true)
            return .expand
        }
        guard decoded > 0 else { return .expand }
        if (120...5760).contains(decoded) { packetSamples = decoded }
        let skip = Int(min(max(playPosition - stored.timestamp, 0), Int64(decoded)))
        playPosition = stored.timestamp + Int64(decoded)
        decodedEnd = playPosition
        lastWasDTX = stored.length <= 2
        stalled = 0
        if waitedForLate > 0, max(burstSamples, lastBurstSamples) >= packetSamples { raiseHeadroom(waitedForLate) }
        waitedForLate = 0
        dryRange = nil
        if skip > 0 { joinNeedsFade = true }
        return emitDecoded(range: skip..<decoded, arrival: stored.arrival)
    }

    private mutating func recoverFromFEC(_ next: StoredPacket) -> PlayoutOperation? {
        let canRecover = store.withPayload(of: next) { decoder.carriesFEC($0) }
        guard canRecover, packetSamples <= decodeScratch.count else { return nil }
        let count = packetSamples
        let recovered: Int? = store.withPayload(of: next) { payload in
            try? decoder.decodeFEC(from: payload, into: decodeScratch.prefix(count))
        }
        guard let recovered, recovered > 0 else { return nil }
        statistics.fecPacketsRecovered += 1
        playPosition += Int64(recovered)
        decodedEnd = playPosition
        stalled = 0
        waitedForLate = 0
        let operation = emitDecoded(range: 0..<recovered, arrival: next.arrival)
        return operation == .normal ? .fecRecovery : operation
    }

    /// Sends decoded samples `decodeScratch[range]` to the queue: merged after concealment, else maybe stretched.
    private mutating func emitDecoded(range: Range<Int>, arrival: Instant) -> PlayoutOperation {
        var operation = PlayoutOperation.normal
        var length = range.count
        let queuedBefore = queue.count
        let block = decodeScratch.slice(range)
        if concealing {
            if joinNeedsFade {
                TimeStretcher.merge(history: UnsafeBufferPointer(history.samples), into: block, fade: 240)
            }
            endConcealment()
            operation = .merge
            appendOutput(UnsafeBufferPointer(block))
        } else {
            let (stretched, op) = stretchIfNeeded(UnsafeBufferPointer(block))
            operation = op
            length = stretched
            appendOutput(UnsafeBufferPointer(op == .normal ? block : stretchScratch.prefix(stretched)))
        }
        let rate = Double(configuration.sampleRate)
        let waited = Double(now.nanoseconds - arrival.nanoseconds) / 1e9
        let delay = waited + (Double(queuedBefore) + Double(length) / 2) / rate
        statistics.jitterBufferDelay += delay * Double(length)
        statistics.jitterBufferTargetDelay += Double(targetNanoseconds) / 1e9 * Double(length)
        statistics.jitterBufferEmittedCount += UInt64(length)
        return operation
    }

    /// Time-scales `block` into `stretchScratch` by one pitch period when the filtered level is off target.
    private mutating func stretchIfNeeded(_ block: UnsafeBufferPointer<Int16>) -> (
        count: Int, operation: PlayoutOperation
    ) {
        guard configuration.maximumStretchRatio > 0 else { return (block.count, .normal) }
        let pause = pauses.isPause(block)
        stretchBudget = min(
            stretchBudget + configuration.maximumStretchRatio * Double(block.count), Double(2 * packetSamples))
        let band = playoutBand
        // Growing lasts from a fall below the band's low edge (the target rose) until the delay is 5 ms short of
        // the target. Speech is stretched only below the low edge, since stretching it is heard; a pause, nearly free
        // to stretch, is expanded all the way, so that the next onset of speech meets the delay the target asks for
        // rather than its low edge, where the late packets of a spread just learned still fall.
        if filteredLevel < band.low {
            growing = true
        } else if filteredLevel >= band.target - Double(limits.samples(milliseconds: 5)) {
            growing = false
        }
        let tooLow = filteredLevel < band.low || (pause && growing)
        // After growing, the delay sits near the top of the band, so it is taken back only with a margin above it:
        // 10 ms in a pause, 25 ms in speech (PESQ sees a warped utterance), or every small fall of the target (a
        // floor decaying) would be stretched out again.
        let margin = Double(limits.samples(milliseconds: pause ? 10 : 25))
        let startTakeBack = start.takeBackDue(
            level: filteredLevel, target: band.target, fiveMs: Double(limits.samples(milliseconds: 5)), at: now)
        let tooHigh = filteredLevel > band.high + margin || (pause && startTakeBack)
        guard tooHigh || tooLow else { return (block.count, .normal) }
        // Decided before the pitch search, which is the costliest step of playout.
        guard var lag = TimeStretcher.stretchLag(block) else { return (block.count, .normal) }
        if pause, tooHigh {
            lag = block.count / 2  // past the margin in a pause: drop half of it at once, outside the budget
            stretchBudget += Double(lag)
        }
        guard stretchBudget >= Double(lag) else { return (block.count, .normal) }
        stretchBudget -= Double(lag)
        if tooHigh {
            statistics.removedSamplesForAcceleration += UInt64(lag)
            filteredLevel -= Double(lag)
            return (TimeStretcher.accelerate(block, lag: lag, into: stretchScratch.samples), .accelerate)
        }
        statistics.insertedSamplesForDeceleration += UInt64(lag)
        filteredLevel += Double(lag)
        return (TimeStretcher.preemptiveExpand(block, lag: lag, into: stretchScratch.samples), .preemptiveExpand)
    }

    /// A wait for a late packet ended with the packet: the playout point moved later by `samples`. The target keeps
    /// that delay for `underflowHold` (waits within it add up), or the level control would take it back. Only the
    /// part of it that took the playout delay above the band's low edge: below it, playout was still growing
    /// towards a target the measured spread had raised (the onset of jitter), and that target already asks for
    /// the delay the wait added; keeping it as well would count it twice.
    private mutating func raiseHeadroom(_ samples: Int) {
        let band = playoutBand
        let kept = min(samples, Int(max(0, filteredLevel - band.low)))
        guard kept > 0 else { return }
        headroomSamples = min(heldHeadroom + kept, limits.maximumHeadroomSamples)
        headroomSince = now
    }

    /// The headroom in force. Without time-stretching it never lapses: nothing can take that delay back, so
    /// forgetting it would let later waits pile up delay without bound; once it is full, underflows skip again.
    private var heldHeadroom: Int {
        guard let headroomSince else { return 0 }
        let held =
            configuration.maximumStretchRatio == 0 || recent(headroomSince, within: limits.underflowHoldNanoseconds)
        return held ? headroomSamples : 0
    }

    /// A packet arrived after playout passed its start (all of it is lost, or the part already concealed). Tells the
    /// late-loss monitor how late (how much more delay would have played it); when that raised the target (not an
    /// isolated spike), playout steps back to the packet (nothing after it was decoded yet): the delay grows by its
    /// lateness at once instead of losing every packet until stretching has caught up (after a delay step up, all
    /// of them arrive that late).
    private mutating func lateArrivalRaisesTarget(_ timestamp: Int64) -> Bool {
        statistics.latePackets += 1
        let latenessSamples = playPosition - timestamp
        let neededSamples = playoutDelaySamples + Int(latenessSamples)
        let raised = lateLoss.lateArrival(
            atMs: now.milliseconds, neededDelayMs: Double(neededSamples) * 1000 / Double(configuration.sampleRate))
        guard raised, latenessSamples <= limits.outageSamples else { return false }
        playPosition = timestamp
        filteredLevel += Double(latenessSamples)
        stalled = 0
        joinNeedsFade = true
        statistics.lateRewinds += 1
        return true
    }

    /// A packet arrived after its slot was played (concealed or recovered from FEC): it was reordered or delayed,
    /// not lost. The delay estimate learns its delay, but playout runs anywhere in a band below the target, so
    /// two such arrivals within `lateBurstWindow` switch to the larger reorder hold.
    private mutating func noteLateArrival() {
        if let lastLate, now.nanoseconds - lastLate.nanoseconds < limits.lateBurstNanoseconds { reorderSeen = now }
        lastLate = now
    }

    /// Playout is about to conceal from `playPosition` with the next packet not there: if the stream carries FEC and
    /// a packet starts here, the next packet's arrival will say how much more delay recovering this one needed
    /// (in a burst of losses, only the last packet's is ever recoverable).
    private mutating func noteConcealedWithoutNext() {
        guard streamCarriesFEC, let decodedEnd, (playPosition - decodedEnd) % Int64(packetSamples) == 0 else { return }
        let belowBandSamples = playoutBand.low - filteredLevel
        fecShortfall.concealedWithoutNext(
            timestamp: playPosition, packetSamples: packetSamples, packetMs: packetMilliseconds,
            belowBandMs: belowBandSamples * 1000 / Double(configuration.sampleRate), atMs: now.milliseconds)
    }

    // MARK: Concealment

    /// Conceals `count` samples from the play position (the decoder's PLC in pulls of `frameSamples`, or silence
    /// once PLC has run long), ending on the audio of `next` when given (`GapInterpolation`).
    private mutating func conceal(_ count: Int, advance: Bool, endingOn next: StoredPacket? = nil) {
        let n = max(0, min(count, decodeScratch.count))
        beginConcealment()
        let silent = concealSound >= limits.maximumConcealmentSamples
        var produced = false
        if !silent {
            let out = decodeScratch.prefix(n)
            produced = true
            for start in stride(from: 0, to: n, by: configuration.frameSamples) where produced {
                let part = decodeScratch.slice(start..<min(n, start + configuration.frameSamples))
                produced = (try? decoder.conceal(into: part)) != nil
            }
            if produced {
                if let next { interpolate(out, endingOn: next) }
                appendOutput(UnsafeBufferPointer(out))
            }
        }
        if !produced { appendSilence(n) }
        concealSound += produced ? n : 0
        countConcealment(n, silent: !produced)
        if advance {
            // Audio skipped for good is loss: hold one more packet for a while so FEC can cover the next one.
            playPosition += Int64(n)
            lastLoss = now
        } else {
            filteredLevel += Double(n)  // a wait moves the delay at once, not slowly (`playoutDelaySamples`)
        }
    }

    /// Cross-fades the concealment `out` into the audio `next` starts with, decoded ahead (the decoder's state is
    /// left as the concealment left it, so `next` decodes to that audio again when its turn comes).
    private mutating func interpolate(_ out: UnsafeMutableBufferPointer<Int16>, endingOn next: StoredPacket) {
        let ahead = aheadScratch.samples
        let decoded = store.withPayload(of: next) { payload in try? decoder.decodeAhead(payload, into: ahead) }
        guard let decoded, decoded > 0 else { return }
        if GapInterpolation.blend(out, into: UnsafeBufferPointer(rebasing: ahead[0..<decoded])) {
            statistics.interpolatedConcealments += 1
        }
    }

    private mutating func beginConcealment() {
        guard !concealing else { return }
        concealing = true
        joinNeedsFade = false
        concealRun = 0
        concealSound = 0
        statistics.concealmentEvents += 1
    }

    private mutating func countConcealment(_ n: Int, silent: Bool) {
        beginConcealment()
        concealRun += n
        statistics.concealedSamples += UInt64(n)
        if silent {
            statistics.silentConcealedSamples += UInt64(n)
            joinNeedsFade = true
        }
    }

    private mutating func endConcealment() {
        guard concealing else { return }
        concealing = false
        joinNeedsFade = false
        if concealRun >= limits.samples(milliseconds: 150) {
            statistics.interruptionCount += 1
            statistics.totalInterruptionDuration += Double(concealRun) / Double(configuration.sampleRate)
        }
        concealRun = 0
        concealSound = 0
    }

    // MARK: Buffer management

    private func readyToStart(_ first: StoredPacket) -> Bool {
        let span = Double((store.last?.timestamp ?? first.timestamp) - first.timestamp + Int64(packetSamples))
        let spanMs = span * 1000 / Double(configuration.sampleRate)
        let waitedMs = Double(now.nanoseconds - first.arrival.nanoseconds) / 1e6
        return spanMs + waitedMs >= Double(targetNanoseconds) / 1e6
    }

    private mutating func dropLatePackets() {
        while let first = store.first, first.timestamp + Int64(packetSamples) <= playPosition {
            store.removeFirst()
            statistics.packetsDiscarded += 1
        }
    }

    private mutating func flushToTarget() {
        let target = limits.samples(nanoseconds: targetNanoseconds)
        guard let newest = store.last?.timestamp else { return }
        while store.count > 1, newest + Int64(packetSamples) - store[0].timestamp > Int64(target) {
            store.removeFirst()
            statistics.packetsDiscarded += 1
        }
        statistics.bufferFlushes += 1
        if mode == .playing, let first = store.first {
            playPosition = first.timestamp
            concealing = true  // cross-fade into the jump like a merge, without counting it as concealment
            joinNeedsFade = true
        }
    }

    private mutating func resetStream() {
        store.removeAll()
        decoder.reset()
        estimator.resetReference()
        fecShortfall.resetStream()
        highestTimestamp = nil
        decodedEnd = nil
        discardBefore = nil
        lastWasDTX = false
        dryRange = nil
        waitedForLate = 0
        endConcealment()
        mode = .idle(.start)
    }

    // MARK: Helpers

    private var levelSamples: Int {
        guard mode == .playing else { return queue.count }
        let newestEnd = (store.lastTimestamp ?? playPosition - Int64(packetSamples)) + Int64(packetSamples)
        return queue.count + Int(max(0, newestEnd - playPosition))
    }

    /// How far (samples) playout runs behind the fastest possible arrival: when the next sample to decode will
    /// play, less its send time plus the reference (least) transit. A packet is in time if its relative delay is
    /// below this, so this is what the target is compared with. Unlike the buffered level it does not move when the
    /// network delay wanders inside the target (a fixed buffer's delay does not either), only when playout stretches,
    /// skips or waits. The buffered level until a reference exists.
    private var playoutDelaySamples: Int {
        guard mode == .playing, let reference = estimator.referenceTransitMilliseconds else { return levelSamples }
        let rate = Double(configuration.sampleRate)
        let playsAtMs = now.milliseconds + Double(queue.count) * 1000 / rate
        let sentMs = Double(playPosition) * 1000 / rate
        return Int((playsAtMs - sentMs - reference) * rate / 1000)
    }

    private var frameMilliseconds: Double {
        Double(configuration.frameSamples) * 1000 / Double(configuration.sampleRate)
    }
    private var packetMilliseconds: Double { Double(packetSamples) * 1000 / Double(configuration.sampleRate) }

    /// Where the playout delay may sit around the target now, in samples.
    private var playoutBand: PlayoutBand {
        PlayoutBand(
            target: Double(limits.samples(nanoseconds: targetNanoseconds)),
            twentyMilliseconds: Double(limits.samples(milliseconds: 20)))
    }

    /// The target delay in nanoseconds (`targetDelay` without `Duration` arithmetic).
    private var targetNanoseconds: Int64 {
        let parts = targetParts
        let ms = max(parts.spreadMs + parts.headroomMs + parts.lossHoldMs, parts.lateLossFloorMs, parts.startFloorMs)
        let bounded = min(max(ms, limits.minimumDelayMilliseconds), limits.maximumDelayMilliseconds)
        return Int64(bounded * 1000) * 1000  // whole microseconds
    }

    /// What the target is made of now (`targetDelay` is their sum or the floor, bounded).
    public var targetParts: TargetDelayParts {
        var lossHold = 0.0
        if let lastLoss, recent(lastLoss, within: limits.fecHoldNanoseconds) {
            // Room for the next packet (whose FEC recovers a loss) to be there in time; jitter headroom already
            // covers part of it.
            let reordering = reorderSeen.map { recent($0, within: limits.fecHoldNanoseconds) } ?? false
            let fraction =
                reordering
                ? max(configuration.fecHoldFraction, configuration.reorderHoldFraction) : configuration.fecHoldFraction
            lossHold = max(packetMilliseconds * fraction, packetMilliseconds - estimator.requiredMilliseconds)
            lossHold += fecShortfall.extraMilliseconds(atMs: now.milliseconds)
        }
        let rate = Double(configuration.sampleRate)
        return TargetDelayParts(
            spreadMs: estimator.requiredMilliseconds + frameMilliseconds,
            headroomMs: Double(heldHeadroom) * 1000 / rate,
            lossHoldMs: lossHold, lateLossFloorMs: lateLoss.floorMilliseconds(atMs: now.milliseconds),
            startFloorMs: start.floorMilliseconds(at: now),
            playoutDelayMs: filteredLevel * 1000 / rate)
    }

    private func recent(_ instant: Instant, within nanoseconds: Int64) -> Bool {
        now.nanoseconds - instant.nanoseconds < nanoseconds
    }

    /// Extends a 32-bit RTP timestamp to 64 bits, choosing the value nearest the highest seen (wrap-around),
    /// in output samples.
    private func unwrap(_ timestamp: UInt32) -> Int64 {
        guard let highest = highestTimestamp else { return (Int64(timestamp) + (1 << 32)) / ticksPerSample }
        let delta = Int64(Int32(bitPattern: timestamp &- highestRTPTimestamp))
        return highest + delta / ticksPerSample
    }

    private mutating func appendSilence(_ n: Int) {
        queue.appendSilence(n)
        recordHistory(nil, count: n)
    }

    private mutating func appendOutput(_ samples: UnsafeBufferPointer<Int16>) {
        queue.append(samples)
        recordHistory(samples.baseAddress, count: samples.count)
    }

    /// Keeps the last `history.count` produced samples (for merging after concealment); `nil` samples are silence.
    private func recordHistory(_ samples: UnsafePointer<Int16>?, count: Int) {
        let h = history.samples
        let fresh = min(count, h.count)
        let keep = h.count - fresh
        if keep > 0 { h.baseAddress!.update(from: h.baseAddress! + fresh, count: keep) }  // overlap is handled
        let destination = h.baseAddress! + keep
        if let samples {
            destination.update(from: samples + (count - fresh), count: fresh)
        } else {
            destination.update(repeating: 0, count: fresh)
        }
    }
}
