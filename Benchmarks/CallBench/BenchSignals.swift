// The audio CallBench sends: a level ramp that marks the first frames read by the call's audio clock,
// then chirps once a second (mouth-to-ear), or speech (PESQ). 48 kHz mono, laid out on 20 ms frames.
import Foundation
import PolyAudio

enum BenchSignals {
    static let rate = 48_000
    static let frame = 960
    /// Ramp frames: a 1 kHz tone (exactly 20 cycles per frame) whose level falls 2 dB per frame.
    static let rampFrames = 15
    static let rampTopDBFS = -20.0
    static let rampStepDB = 2.0
    /// The first chirp (and, in speech files, the speech) starts here; chirps repeat every `period`.
    static let contentStart = rate / 2
    static let period = rate
    /// 40 ms Hann-windowed linear sweep 300 → 3400 Hz, about -12 dBFS peak.
    static let chirp: [Float] = {
        let count = rate / 25
        let duration = Double(count) / Double(rate)
        return (0..<count).map { index in
            let t = Double(index) / Double(rate)
            let phase = 2 * Double.pi * (300 * t + (3400 - 300) / (2 * duration) * t * t)
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(index) / Double(count - 1))
            return Float(0.25 * window * sin(phase))
        }
    }()

    /// The level (dBFS, as the call's input meter measures it) of ramp frame `index`.
    static func rampLevel(_ index: Int) -> Double { rampTopDBFS - rampStepDB * Double(index) }

    /// Which ramp frame has this metered level, if any (within a third of a step).
    static func rampIndex(ofLevel dBFS: Double) -> Int? {
        let position = (rampTopDBFS - dBFS) / rampStepDB
        let index = Int(position.rounded())
        guard (0..<rampFrames).contains(index), abs(position - Double(index)) < 0.33 else { return nil }
        return index
    }

    static func ramp() -> [Int16] {
        (0..<rampFrames * frame).map { index in
            let amplitude = 2.0.squareRoot() * pow(10, rampLevel(index / frame) / 20) * 32768
            return Int16((amplitude * sin(2 * Double.pi * 1000 * Double(index) / Double(rate))).rounded())
        }
    }

    /// Ramp, then `chirps` chirps one `period` apart from `contentStart`; as long as a whole number of periods
    /// (so a looping sender keeps the one-a-second rhythm).
    static func chirpTrain(chirps: Int) -> [Int16] {
        var samples = ramp() + [Int16](repeating: 0, count: contentStart + chirps * period - rampFrames * frame)
        for index in 0..<chirps {
            let start = contentStart + index * period
            for (offset, value) in chirp.enumerated() { samples[start + offset] = Int16(value * 32767) }
        }
        return samples
    }

    /// Ramp, silence up to `contentStart`, the speech, then one second of silence.
    static func speechTrack(_ speech: [Int16]) -> [Int16] {
        ramp() + [Int16](repeating: 0, count: contentStart - rampFrames * frame) + speech
            + [Int16](repeating: 0, count: rate)
    }

    static func write(_ samples: [Int16], to url: URL) throws {
        try WAVFile(sampleRate: rate, layout: .mono, samples: .int16(samples)).write(to: url)
    }
}
