// Round-trip time from a report block's LSR and DLSR (RFC 3550 §6.4.1).

extension RTCPReportBlock {
    /// The round-trip time this block implies when it arrives at `arrival` (our NTP clock), or nil
    /// when the sender has not yet seen one of our SRs (LSR 0) or the result is negative.
    ///
    /// RTT = A − LSR − DLSR, all in the 16.16 "middle 32 bits" units, modulo 2³².
    public func roundTripTime(arrival: NTPTimestamp) -> Duration? {
        guard lastSenderReport != 0 else { return nil }
        let units = Int32(bitPattern: arrival.middle32 &- lastSenderReport &- delaySinceLastSenderReport)
        guard units >= 0 else { return nil }
        return .nanoseconds(Int64(units) * 1_000_000_000 / 65536)
    }
}
