// N calls of one scenario in one process: started at `rate` per second, all on the SDK's one event loop,
// each with its own seed (scenario seed + call index) so a failing call can be rerun alone.
import PolyVoice

public struct SuiteSettings: Sendable {
    public var calls = 1
    /// Calls started per second (nil: all at once).
    public var rate: Double?
    /// Only this call index (its seed as in the full run).
    public var onlyCall: Int?
    /// Overrides the scenario's seed.
    public var seed: UInt64?
    public var call = ConversationCallSettings()

    public init() {}

    public var indices: [Int] { onlyCall.map { [$0] } ?? Array(0..<calls) }
}

/// What a suite reports while it runs (progress line, NDJSON).
public enum SuiteEvent: Sendable {
    case started(call: Int, seed: UInt64)
    case finished(CallResult)
}

public enum ConversationSuite {
    public static func run(
        scenario: Scenario, steps: [PreparedStep], settings: SuiteSettings, config: Configuration,
        options: VoiceOptions,
        onEvent: @escaping @Sendable (SuiteEvent) -> Void
    ) async -> [CallResult] {
        let base = settings.seed ?? scenario.seed
        let results = await withTaskGroup(of: CallResult.self) { group in
            let started = ContinuousClock.now
            for (position, index) in settings.indices.enumerated() {
                if let rate = settings.rate, rate > 0 {
                    let due = started + .milliseconds(Int64(Double(position) / rate * 1000))
                    try? await Task.sleep(until: due, clock: .continuous)
                }
                let seed = base &+ UInt64(index)
                onEvent(.started(call: index, seed: seed))
                group.addTask {
                    let result = await ConversationCall.run(
                        scenario: scenario, steps: steps, call: index, seed: seed, config: config, options: options,
                        settings: settings.call)
                    onEvent(.finished(result))
                    return result
                }
            }
            var all: [CallResult] = []
            for await result in group { all.append(result) }
            return all
        }
        return results.sorted { $0.call < $1.call }
    }
}
