// In-band DTMF: the ITU-T Q.23 frequency pairs, mixed into audio frames when the far end did not
// negotiate RFC 4733 telephone-events. Allocation-free (it runs on the frame clock).
import Glibc

/// The tone pairs of the 16 DTMF keys, by RFC 4733 event code (0-9, * = 10, # = 11, A-D = 12-15).
public enum DTMFTone {
    public static let lowFrequencies: [Double] = [697, 770, 852, 941]
    public static let highFrequencies: [Double] = [1209, 1336, 1477, 1633]
    /// Each tone's peak level (−13.4 dBFS; the pair peaks at −7.4 dBFS, leaving room for speech).
    public static let amplitude = 7000.0

    /// Row and column of each event code on the keypad.
    private static let keypad: [(row: Int, column: Int)] = [
        (3, 1), (0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2),  // 0-9
        (3, 0), (3, 2),  // * #
        (0, 3), (1, 3), (2, 3), (3, 3),  // A-D
    ]

    /// The (low, high) frequencies of event code `event` (0...15), nil for others.
    public static func frequencies(event: UInt8) -> (low: Double, high: Double)? {
        guard Int(event) < keypad.count else { return nil }
        let key = keypad[Int(event)]
        return (lowFrequencies[key.row], highFrequencies[key.column])
    }

    /// Adds the tone of `event` to `frame` (interleaved `channels`), whose first sample is sample
    /// `startSample` of the tone at `sampleRate`; sums saturate at full scale.
    public static func mix(
        event: UInt8, startSample: Int, sampleRate: Int, channels: Int = 1,
        into frame: UnsafeMutableBufferPointer<Int16>
    ) {
        guard let (low, high) = frequencies(event: event), channels > 0 else { return }
        let lowStep = 2 * Double.pi * low / Double(sampleRate)
        let highStep = 2 * Double.pi * high / Double(sampleRate)
        for index in 0..<frame.count {
            let n = Double(startSample + index / channels)
            let tone = amplitude * (sin(lowStep * n) + sin(highStep * n))
            let mixed = Double(frame[index]) + tone
            frame[index] = Int16(max(-32768, min(32767, mixed.rounded())))
        }
    }
}
