// AudioProcessingBench: cost of one 20 ms frame at 48 kHz mono through AudioProcessor (playout
// reference + microphone, all components on) against the same calls made directly on the C API
// (CAudioProcessing) in the same process, and heap allocation calls per frame (counted by the
// allocator interposer in Benchmarks/CSRTPBench).
import CAudioProcessing
import CSRTPBench
import Foundation
import PolyAudio
import PolyCore

let frames = 2000  // 40 s of audio per round
let rounds = 3
let frame = AudioProcessor.frameSamples
let block = AudioProcessor.blockSamples

/// Deterministic speech-band-ish test audio: noise bursts shaped by a slow envelope.
func makeSignal(count: Int, seed: UInt64) -> [Int16] {
    var random = SeededRandom(seed: seed)
    return (0..<count).map { index in
        let envelope = 0.5 + 0.5 * Double((index / 4800) % 3) / 2
        return Int16(clamping: Int(random.normal(standardDeviation: 3000 * envelope)))
    }
}

let far = makeSignal(count: frames * frame, seed: 1)
// Echo of the far end 40 ms later at half amplitude over quieter near-end noise.
let near = makeSignal(count: frames * frame, seed: 2).enumerated().map { index, sample in
    Int16(clamping: Int(sample) / 8 + (index >= 1920 ? Int(far[index - 1920]) / 2 : 0))
}

/// Minimum over rounds of (µs per 20 ms frame, allocations per frame).
func measure(_ body: (UnsafeMutableBufferPointer<Int16>) -> Void) -> (microseconds: Double, allocations: Double) {
    var best = Double.infinity
    var allocations = Double.infinity
    var work = near
    for _ in 0..<rounds {
        work.replaceSubrange(0..<work.count, with: near)  // same size: no reallocation
        let allocationsBefore = csb_allocation_count()
        let start = Instant.now()
        work.withUnsafeMutableBufferPointer { body($0) }
        let elapsed = Instant.now() - start
        let allocationsAfter = csb_allocation_count()
        best = min(best, Double(elapsed.totalNanoseconds) / 1000 / Double(frames))
        allocations = min(allocations, Double(allocationsAfter - allocationsBefore) / Double(frames))
    }
    return (best, allocations)
}

// The interposer must see set-up allocations, or "0 per frame" would mean nothing.
let setUpAllocations = csb_allocation_count()
precondition(setUpAllocations > 0, "allocation counter inactive")

let processor = try! AudioProcessor(options: .all)
let swift = far.withUnsafeBufferPointer { farBuffer in
    measure { nearBuffer in
        for start in stride(from: 0, to: frames * frame, by: frame) {
            try! processor.processPlayout(UnsafeBufferPointer(rebasing: farBuffer[start..<(start + frame)]))
            try! processor.processCapture(
                UnsafeMutableBufferPointer(rebasing: nearBuffer[start..<(start + frame)]), echoDelay: .milliseconds(40))
        }
    }
}

let apm = pv_apm_create(48000, 1, 1, 1, 1)!
let direct = far.withUnsafeBufferPointer { farBuffer in
    measure { nearBuffer in
        for start in stride(from: 0, to: frames * frame, by: block) {
            _ = pv_apm_process_render(apm, farBuffer.baseAddress! + start, block)
            _ = pv_apm_process_capture(apm, nearBuffer.baseAddress! + start, block, 40)
        }
    }
}
pv_apm_destroy(apm)

func format(_ value: Double) -> String { String(format: "%.2f", value) }

print("AudioProcessor, 20 ms frame at 48 kHz mono, AEC+NS+AGC (playout + capture):")
print(
    "  Swift AudioProcessor: \(format(swift.microseconds)) µs/frame "
        + "(\(format(swift.microseconds / 200)) % of real time), \(format(swift.allocations)) allocations/frame")
print(
    "  C API directly:       \(format(direct.microseconds)) µs/frame "
        + "(\(format(direct.microseconds / 200)) % of real time), \(format(direct.allocations)) allocations/frame")
print("  (allocation counter active: \(setUpAllocations) calls during set-up)")
print("  ratio Swift / C: \(format(swift.microseconds / direct.microseconds))")
let result: [String: Any] = [
    "bench": "AudioProcessingBench", "swift_us_per_frame": swift.microseconds, "c_us_per_frame": direct.microseconds,
    "ratio": swift.microseconds / direct.microseconds, "ratio_kind": "Swift time / C time (lower is better)",
    "swift_allocations_per_frame": swift.allocations, "c_allocations_per_frame": direct.allocations,
]
print(
    "RESULT_JSON "
        + String(
            decoding: try! JSONSerialization.data(
                withJSONObject: result, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self))
