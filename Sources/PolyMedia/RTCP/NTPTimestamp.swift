// 64-bit NTP timestamps as RTCP carries them (RFC 3550 §4): 32.32 fixed-point seconds.
import PolyCore

/// An NTP timestamp: seconds since 1900 in the high 32 bits, the fraction in the low 32 bits.
public struct NTPTimestamp: Sendable, Hashable {
    public var value: UInt64

    public init(value: UInt64) { self.value = value }

    /// From seconds (fractional) on the NTP timeline.
    public init(seconds: Double) {
        let whole = seconds.rounded(.down)
        let fraction = (seconds - whole) * 4_294_967_296
        value = UInt64(whole) << 32 | UInt64(min(fraction, 4_294_967_295))
    }

    /// Seconds from 1900-01-01 to 1970-01-01.
    public static let unixEpochOffset: Double = 2_208_988_800

    /// From Unix wall-clock seconds (what an I/O shell reads for sender reports).
    public init(unixSeconds: Double) { self.init(seconds: unixSeconds + Self.unixEpochOffset) }

    /// From the caller's monotonic `Instant`, placed at `origin` on the NTP timeline. Round-trip
    /// times only compare our own timestamps with their echo, so any fixed origin is correct for them.
    public init(instant: Instant, origin: NTPTimestamp = NTPTimestamp(value: 0)) {
        let ns = UInt64(max(0, instant.nanoseconds))
        let seconds = ns / 1_000_000_000
        let fraction = (ns % 1_000_000_000) << 32 / 1_000_000_000
        value = origin.value &+ (seconds << 32 | fraction)
    }

    /// The middle 32 bits (16.16 seconds), as carried in LSR and compared for RTT.
    public var middle32: UInt32 { UInt32(truncatingIfNeeded: value >> 16) }

    public var seconds: Double { Double(value >> 32) + Double(value & 0xFFFF_FFFF) / 4_294_967_296 }
}
