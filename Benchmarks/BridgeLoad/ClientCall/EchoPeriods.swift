// The long call's audio: a speech segment at the start of every period of the looped input, and the echo of each
// period cut out of the call's recording and scored against it (scripts/quality.py: PESQ-WB, delay).
import Foundation
import PolyAudio

struct EchoPeriods {
    /// The speech (mono 16-bit, 48 kHz) and the period it repeats with.
    let speech: [Int16]
    let period: Int
    static let rate = 48_000

    init(speechFile: URL, periodSeconds: Double) throws {
        let file = try WAVFile.read(from: speechFile)
        guard file.sampleRate == Self.rate, file.layout.count == 1, case .int16(let samples) = file.samples else {
            throw BenchError("the speech must be a mono 16-bit 48 kHz WAV (scripts/make-speech.sh writes one)")
        }
        speech = samples
        period = Int(periodSeconds * Double(Self.rate))
        guard period >= speech.count + Self.rate else { throw BenchError("the period must exceed the speech by 1 s") }
    }

    /// One period: the speech, then silence.
    func writeInput(to url: URL) throws {
        var samples = speech
        samples += [Int16](repeating: 0, count: period - speech.count)
        try WAVFile(sampleRate: Self.rate, layout: .mono, samples: .int16(samples)).write(to: url)
    }

    /// One scored period of the recording.
    struct Score: Encodable {
        var period: Int
        var startS: Double
        var pesqWb: Double
        var delayMs: Double
    }

    /// Scores the echo of the periods in `indices` found in `recording` (the call's --output, 48 kHz mono):
    /// period k's window starts at k·period and spans the speech plus 1 s (the echo's delay is far below that).
    func score(recording: URL, periods indices: [Int], workDirectory: URL, python: String, script: String) throws
        -> [Score]
    {
        let file = try WAVFile.read(from: recording)
        guard file.sampleRate == Self.rate, case .int16(let samples) = file.samples else {
            throw BenchError("the recording is not 16-bit at 48 kHz")
        }
        let channels = file.layout.count
        let reference = workDirectory.appendingPathComponent("speech-reference.wav")
        try WAVFile(sampleRate: Self.rate, layout: .mono, samples: .int16(speech)).write(to: reference)
        var scores: [Score] = []
        for index in indices {
            let start = index * period
            let end = start + speech.count + Self.rate
            guard end * channels <= samples.count else { continue }
            // The first channel (the recording is mono unless the device asked for more).
            let window = stride(from: start * channels, to: end * channels, by: channels).map { samples[$0] }
            let degraded = workDirectory.appendingPathComponent("echo-period-\(index).wav")
            try WAVFile(sampleRate: Self.rate, layout: .mono, samples: .int16(window)).write(to: degraded)
            let result = try Self.runQuality(python: python, script: script, reference: reference, degraded: degraded)
            scores.append(
                Score(
                    period: index, startS: Double(start) / Double(Self.rate), pesqWb: result.pesq,
                    delayMs: result.delay))
            try? FileManager.default.removeItem(at: degraded)
        }
        return scores
    }

    private static func runQuality(python: String, script: String, reference: URL, degraded: URL) throws
        -> (pesq: Double, delay: Double)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, reference.path, degraded.path, "--json", "--max-delay", "0.9"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let pesq = (object["pesq_wb"] as? NSNumber)?.doubleValue,
            let delay = (object["delay_ms"] as? NSNumber)?.doubleValue
        else { throw BenchError("quality.py failed on \(degraded.lastPathComponent)") }
        return (pesq, delay)
    }

    /// Which periods to score: the first three after the first (media and the echo's line are still being set up
    /// in period 0), the last three complete ones, and evenly spread ones between, at most `limit` in all.
    static func chosen(complete count: Int, limit: Int = 30) -> [Int] {
        guard count > 1 else { return [] }
        let all = Array(1..<count)
        guard all.count > limit else { return all }
        let step = Double(all.count - 1) / Double(limit - 1)
        return Array(Set((0..<limit).map { all[Int((Double($0) * step).rounded())] } + all.prefix(3) + all.suffix(3)))
            .sorted()
    }
}
