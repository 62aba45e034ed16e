// Concealment of a lone lost packet that ends where the next packet's audio begins.
//
// The decoder's PLC extrapolates the audio before the gap and knows nothing of what follows it. When the next packet
// is already buffered, its start is known: extended backwards by whole pitch periods it covers the gap as well, and
// the gap is cross-faded from the PLC (continuous with the past) into that extension (continuous with the future).
// Only where the next packet starts voiced: a noisy start repeated would buzz. It improves CELT's PLC (the
// 96 kbit/s fullband streams browsers send); offline it did nothing measurable for SILK, whose packets the buffer
// sends the FEC path anyway (docs/JITTER.md, "Two-sided concealment of a lone loss").
import Glibc

/// Blends a gap's concealment into a backward extension of the audio after the gap; stateless.
enum GapInterpolation {
    /// Pitch periods searched, in samples at 48 kHz (500 Hz down to 75 Hz), and the window compared across one.
    /// (A buffer playing out at 16 kHz, as a bridge's agents may, has packets too short for the search: no blend.)
    static let minimumLag = 96
    static let maximumLag = 640
    static let window = 240
    /// Normalised correlation above which the next packet's start counts as voiced.
    static let voicedCorrelation = 0.7

    /// Cross-fades `concealment` (the decoder's PLC of the gap, in place) into `next` (the decoded audio after the
    /// gap) repeated backwards by its pitch period. Returns false, leaving `concealment` as it was, when `next` is
    /// too short to find a period in or does not start voiced.
    static func blend(_ concealment: UnsafeMutableBufferPointer<Int16>, into next: UnsafeBufferPointer<Int16>) -> Bool {
        guard let lag = voicedLag(next) else { return false }
        let n = concealment.count
        guard n > 1 else { return false }
        for j in 0..<n {
            // The extension is continuous with `next`: its last sample is the one a period before next[0].
            let extended = Double(next[((j - n) % lag + lag) % lag])
            let w = 0.5 + 0.5 * cos(Double.pi * Double(j) / Double(n - 1))
            concealment[j] = TimeStretcher.clamp(w * Double(concealment[j]) + (1 - w) * extended)
        }
        return true
    }

    /// The pitch period of `x`'s start: the lag whose `window` samples best match the first `window`, if that match
    /// reaches `voicedCorrelation`.
    static func voicedLag(_ x: UnsafeBufferPointer<Int16>) -> Int? {
        let highest = min(maximumLag, x.count - window)
        guard highest > minimumLag else { return nil }
        var energyA: Int64 = 0
        for i in 0..<window { energyA &+= Int64(x[i]) &* Int64(x[i]) }
        var energyB: Int64 = 0
        for i in minimumLag..<(minimumLag + window) { energyB &+= Int64(x[i]) &* Int64(x[i]) }
        var best = (lag: 0, correlation: voicedCorrelation)
        for lag in minimumLag..<highest {
            if lag > minimumLag {
                let leaving = Int64(x[lag - 1])
                let entering = Int64(x[lag + window - 1])
                energyB &+= entering &* entering &- leaving &* leaving
            }
            var cross: Int64 = 0
            for i in 0..<window { cross &+= Int64(Int32(x[i]) &* Int32(x[lag + i])) }
            let denominator = (Double(energyA) * Double(energyB)).squareRoot()
            let correlation = denominator > 0 ? Double(cross) / denominator : 0
            if correlation > best.correlation { best = (lag, correlation) }
        }
        return best.lag > 0 ? best.lag : nil
    }
}
