// What one scripted call measured and how it ended, for reports and the exit code.
import PolyMedia
import PolyVoice

public struct CallResult: Sendable {
    public var call: Int
    public var seed: UInt64
    public var finalState: CallState
    public var setupMs: Double?
    public var metrics: ConversationMetrics
    public var steps: [StepOutcome]
    /// Expectation names with their failure reasons (nil: held).
    public var expectations: [(name: String, failure: String?)]
    public var stats: MediaStats
    public var quality: CallQuality
    /// What the caller sent and heard, from t = 0, 48 kHz mono.
    public var sent: [Int16]
    public var heard: [Int16]
    /// The caller's audio arrived late for its 20 ms tick (the runner fell behind): timings after that
    /// point are late by up to this much and the call is not ok.
    public var underrunMs: Double
    /// The most the call's audio clock fell behind real time (`CallAudioCounters.clockLagSamples`): more than
    /// `clockLagLimitMs` means the process lacked the CPU, the caller's timeline was not real time and the
    /// call is not ok.
    public var clockLagMs: Double = 0
    /// Lag from scheduling alone stays within a few milliseconds on an idle machine.
    public static let clockLagLimitMs = 40.0
    /// A problem that stopped the call from being measured (failed call, refused start).
    public var error: String?

    public var failures: [String] {
        var reasons: [String] = []
        if let error { reasons.append(error) }
        reasons += steps.compactMap { step in step.failure.map { "\(step.path) (\(step.kind)): \($0)" } }
        reasons += expectations.compactMap { expectation in expectation.failure.map { "\(expectation.name): \($0)" } }
        if underrunMs > 0 {
            reasons.append(String(cFormat: "measurement: the caller's audio was late by %.0f ms (CPU)", underrunMs))
        }
        if clockLagMs > Self.clockLagLimitMs {
            reasons.append(
                String(cFormat: "measurement: the audio clock fell behind real time by %.0f ms (CPU)", clockLagMs))
        }
        return reasons
    }

    public var ok: Bool { failures.isEmpty }

    /// The `call` command's code when the call itself failed; nil when it ran (expectations decide).
    public var callExitCode: Int32? {
        guard case .failed(let error) = finalState else { return nil }
        switch error {
        case .invalidConfiguration: return 2
        case .auth: return 3
        case .transport, .voice(.signalingFailed), .voice(.timedOut), .voice(.disconnected): return 4
        case .voice(.mediaFailed), .voice(.interrupted), .voice(.deviceUnavailable): return 5
        }
    }
}
