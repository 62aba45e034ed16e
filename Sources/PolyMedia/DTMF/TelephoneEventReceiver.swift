// Turns received telephone-event packets into digits: one digit per event (RTP timestamp), reported at its
// first end packet — the two retransmitted ends and late updates are duplicates — or, if every end was lost,
// when the next event begins.
import PolyCore

/// A digit the far end sent.
public struct ReceivedDTMF: Sendable, Equatable {
    public var digit: DTMFDigit
    /// The event's length from its duration field, in RTP clock units.
    public var durationSamples: Int
    /// When its first packet arrived.
    public var start: Instant
}

/// Deduplicates one stream's telephone events.
public struct TelephoneEventReceiver: Sendable {
    private var reportedTimestamp: UInt32?
    private var current: (timestamp: UInt32, event: TelephoneEvent, start: Instant)?

    public init() {}

    /// Handles one packet; `report` gets each digit it completes, oldest first (at most two: an older event
    /// whose ends were all lost, then this one). Events above 15 (not DTMF) are ignored.
    public mutating func receive(
        _ event: TelephoneEvent, timestamp: UInt32, at now: Instant, report: (ReceivedDTMF) -> Void
    ) {
        guard timestamp != reportedTimestamp, let digit = DTMFDigit(event: event.event) else { return }
        if let open = current, open.timestamp != timestamp {
            if let unfinished = DTMFDigit(event: open.event.event) {
                report(ReceivedDTMF(digit: unfinished, durationSamples: Int(open.event.duration), start: open.start))
            }
            current = nil
        }
        let start = current?.start ?? now
        guard event.end else {
            current = (timestamp, event, start)
            return
        }
        current = nil
        reportedTimestamp = timestamp
        report(ReceivedDTMF(digit: digit, durationSamples: Int(event.duration), start: start))
    }
}
