// Signals and measures for the AudioProcessor tests: simulated rooms and energy ratios.
import Foundation
import PolyAudio
import PolyCore

enum AudioProcessorSignals {
    /// Runs far end (to the speaker) and near end (microphone) through `processor` in 20 ms frames,
    /// as the pipeline does; returns the processed near end (whole frames only).
    static func run(
        _ processor: AudioProcessor, far: [Int16], near: [Int16], echoDelay: Duration = .zero
    ) throws -> [Int16] {
        let frame = AudioProcessor.frameSamples * processor.channels
        let count = min(far.count, near.count) / frame * frame
        var output = Array(near[0..<count])
        try far.withUnsafeBufferPointer { farBuffer in
            try output.withUnsafeMutableBufferPointer { nearBuffer in
                for start in stride(from: 0, to: count, by: frame) {
                    try processor.processPlayout(UnsafeBufferPointer(rebasing: farBuffer[start..<(start + frame)]))
                    try processor.processCapture(
                        UnsafeMutableBufferPointer(rebasing: nearBuffer[start..<(start + frame)]), echoDelay: echoDelay)
                }
            }
        }
        return output
    }

    /// A room's echo of `far`: a direct path after `delay` samples at `gain`, plus a weaker
    /// reflection 5 ms later.
    static func echo(of far: [Int16], delay: Int, gain: Double) -> [Int16] {
        let reflection = 240
        return far.indices.map { index in
            var value = 0.0
            if index >= delay { value += gain * Double(far[index - delay]) }
            if index >= delay + reflection { value += 0.4 * gain * Double(far[index - delay - reflection]) }
            return Int16(clamping: Int(value.rounded()))
        }
    }

    /// Stationary white noise with the given RMS (in sample units), reproducible from `seed`.
    static func noise(count: Int, rms: Double, seed: UInt64) -> [Int16] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in Int16(clamping: Int(random.normal(standardDeviation: rms).rounded())) }
    }

    /// Sample-wise sum, clipped.
    static func mix(_ a: [Int16], _ b: [Int16]) -> [Int16] {
        zip(a, b).map { Int16(clamping: Int($0) + Int($1)) }
    }

    /// Energy (sum of squares) of a slice.
    static func energy(_ samples: ArraySlice<Int16>) -> Double {
        samples.reduce(0.0) { $0 + Double($1) * Double($1) }
    }

    /// How many dB less energy `after` has than `before`.
    static func reductionDB(_ before: ArraySlice<Int16>, _ after: ArraySlice<Int16>) -> Double {
        10 * log10(max(energy(before), 1) / max(energy(after), 1))
    }
}
