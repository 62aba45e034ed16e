// The jitter buffer's feedback on in-band FEC: was the next packet there when a lost one was due?
//
// Opus carries a low-bitrate copy of each packet in the next one, so a loss is recovered only if packet n+1 is
// buffered when packet n is due. The FEC hold after a loss makes room for it, but how much room playout really keeps
// varies: the level control lets the delay sit anywhere in a band below the target. When packet n+1 arrives after n
// was concealed (and still in time to be played itself), it says by how much the delay fell short of recovering n.
// The hold then grows by that shortfall plus a margin, at once, and after `hold` without another miss falls by
// `decayPerSecond`: up quickly, down slowly, as the late-loss floor does for packets that miss their own slot.
// Less the part of the shortfall that playout was still below the band's low edge: there it was growing towards a
// target already raised for it (the onset of jitter), and adding that part again would count it twice.

/// Learns how much delay after a loss in-band FEC needs, from the next packets that came too late for it; sans-IO.
struct FECShortfallMonitor {
    /// Added on top of the shortfall seen (ms): the next packet after a later loss is rarely exactly as late.
    static let marginMilliseconds = 5.0
    /// The most the hold may grow by (ms): two packets, beyond which the delay costs more than FEC saves.
    static let maximumMilliseconds = 40.0
    /// The extra hold stays this long (ms) after it was last raised, then decays.
    static let holdMilliseconds = 8000.0
    /// How fast the extra hold falls after that, ms per second.
    static let decayPerSecond = 5.0

    private var extra = HeldValue(holdMilliseconds: Self.holdMilliseconds, decayPerSecond: Self.decayPerSecond)
    /// The concealed packet, the next one whose FEC would have recovered it, when the concealment began, the
    /// latest the next packet can arrive and still be a FEC miss (a packet later: it missed its own slot), and how
    /// far the playout delay then sat below the band's low edge.
    private var awaited: (concealed: Int64, next: Int64, concealedAtMs: Double, latestMs: Double, belowBandMs: Double)?
    /// The concealed packet behind the last raise, and by how much it raised the hold: if it arrives after all (its
    /// successor overtook it), it was late, not lost, and the raise is taken back.
    private var lastRaise: (concealedTimestamp: Int64, milliseconds: Double)?
    /// How many next packets arrived too late for FEC and raised the hold.
    private(set) var misses = 0

    /// Playout began concealing the packet at `timestamp` (output samples; `packetSamples` and `packetMs` long) at
    /// `nowMs` because neither it nor the next packet was there, with the playout delay `belowBandMs` below the
    /// low edge of the band around the target (0 inside the band).
    mutating func concealedWithoutNext(
        timestamp: Int64, packetSamples: Int, packetMs: Double, belowBandMs: Double, atMs nowMs: Double
    ) {
        let next = timestamp + Int64(packetSamples)
        guard awaited?.next != next else { return }  // still waiting for it: keep when that began
        awaited = (timestamp, next, nowMs, nowMs + packetMs, max(0, belowBandMs))
    }

    /// A packet with `timestamp` arrived at `nowMs`. If it is the one a concealment waited for, and no more than a
    /// packet after the concealment began (later, it missed its own slot: a late loss, not a FEC miss), the extra
    /// hold grows by how late it was for FEC, less what playout still had to grow to reach the band. If it is the
    /// concealed packet itself, that was late, not lost (a stall or a delay step, which the late-loss floor
    /// answers): nothing is learned.
    mutating func arrival(timestamp: Int64, atMs nowMs: Double) {
        if let lastRaise, lastRaise.concealedTimestamp == timestamp {
            extra.set(max(0, extra.value(atMs: nowMs) - lastRaise.milliseconds), atMs: nowMs)
            self.lastRaise = nil
            misses -= 1
        }
        guard let awaited else { return }
        if timestamp == awaited.concealed { self.awaited = nil }
        guard timestamp == awaited.next else { return }
        self.awaited = nil
        guard nowMs >= awaited.concealedAtMs, nowMs <= awaited.latestMs else { return }
        let raise = nowMs - awaited.concealedAtMs + Self.marginMilliseconds - awaited.belowBandMs
        guard raise > 0 else { return }
        let before = extra.value(atMs: nowMs)
        let raised = min(Self.maximumMilliseconds, before + raise)
        extra.set(raised, atMs: nowMs)
        lastRaise = (awaited.concealed, raised - before)
        misses += 1
    }

    /// Forgets a pending concealment (the stream restarted).
    mutating func resetStream() { awaited = nil }

    /// The extra FEC hold at `nowMs` (0 when no next packet came too late).
    func extraMilliseconds(atMs nowMs: Double) -> Double { extra.value(atMs: nowMs) }
}
