// The run's machine-readable summary: the `RESULT_JSON {…}` line the report script collects.
import Foundation

struct RunSummary: ResultJSON {
    struct Step: Encodable {
        var calls: Int
        var seconds: Double
        /// Packets lost because of the bridge (drops, gaps, shortfall; see `StepResult.serverCausedLoss`).
        var serverCausedLossPackets: Double
        var serverCausedLossPercent: Double
        /// The bridge process's CPU per call-second, and its busiest thread's share of one core.
        var bridgeCpuMsPerCallSecond: Double
        var bridgeBusiestThreadPercent: Double
        /// How long that thread waited for a CPU (percent of the step): other processes' load.
        var bridgeBusiestThreadRunQueueWaitPercent: Double
        /// The load generator's (this process's) CPU per call-second; behind = it did not keep up.
        var generatorCpuMsPerCallSecond: Double
        var generatorBehind: Bool
        var machineBusyCores: Double
    }

    var steps: [Step]
    /// The largest N whose step had zero server-caused loss (and the same with the generator keeping up).
    var maxCallsZeroLoss: Int
    var maxCallsZeroLossGeneratorOk: Int
    /// The bridge's CPU per call-second at the largest zero-loss step where the generator kept up (else the
    /// largest zero-loss step, else the last step).
    var cpuMsPerCallSecond: Double?
    var nproc: Int
    var targetCalls = 200
    /// The codec's part of a call's cost, measured apart (see CostModel).
    var costModel: CostModel

    init(steps results: [StepResult], nproc: Int, costModel: CostModel) {
        self.costModel = costModel
        steps = results.map { r in
            let callSeconds = max(1e-9, Double(r.calls) * r.seconds)
            return Step(
                calls: r.calls, seconds: r.seconds, serverCausedLossPackets: r.serverCausedLoss,
                serverCausedLossPercent: r.serverLossPercent,
                bridgeCpuMsPerCallSecond: r.serverCPU * 1000 / callSeconds,
                bridgeBusiestThreadPercent: r.serverLoop / max(1e-9, r.seconds) * 100,
                bridgeBusiestThreadRunQueueWaitPercent: r.serverLoopWait / max(1e-9, r.seconds) * 100,
                generatorCpuMsPerCallSecond: r.clientCPU * 1000 / callSeconds,
                generatorBehind: r.clientBehind, machineBusyCores: r.machineBusyCores)
        }
        let clean = results.filter { $0.serverCausedLoss == 0 }
        maxCallsZeroLoss = clean.map(\.calls).max() ?? 0
        maxCallsZeroLossGeneratorOk = clean.filter { !$0.clientBehind }.map(\.calls).max() ?? 0
        self.nproc = nproc
        let best = maxCallsZeroLossGeneratorOk > 0 ? maxCallsZeroLossGeneratorOk : maxCallsZeroLoss
        let reference = steps.last { $0.calls == best } ?? steps.last
        cpuMsPerCallSecond = reference?.bridgeCpuMsPerCallSecond
    }

}

/// A run's figures, printed as the last line of its output (`RESULT_JSON {…}`, collected by scripts/bench_report.py).
protocol ResultJSON: Encodable {}

extension ResultJSON {
    /// One line of JSON, snake_case keys sorted (so runs diff cleanly).
    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
