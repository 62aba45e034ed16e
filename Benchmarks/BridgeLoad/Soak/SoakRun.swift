// The soak: `calls` concurrent echo calls that churn (each lasts a seeded 30–120 s; an ended call is replaced at
// once) for `duration`, sampled every `sampleEvery`. Before the churn, the bridge's RSS at 0, half and all calls
// (its memory per added call). After it, every call hangs up and the bridge must be back to its idle
// descriptors and threads with no call left.
import Foundation
import PolyCore
import PolyNet

struct SoakSettings {
    var duration: Double = 600
    var calls = 100
    var lifetime: ClosedRange<Double> = 30...120
    var sampleEvery: Double = 10
    /// Samples before this (seconds of churn) are left out of the slopes: every first call has been replaced
    /// by then and the allocators have reached their working size.
    var warmup: Double = 120
    var seed: UInt64 = 1
}

struct SoakRun {
    let settings: SoakSettings
    let generator: LoadGenerator
    let bridge: BridgeProcess
    let loops: [EventLoop]

    /// A running call, its lifetime and its counters at the last sample (or its start).
    private struct Live {
        var call: LoadCall
        var endsAt: Instant
        var last: CallCounters
    }

    func run() async throws -> SoakSummary {
        var summary = SoakSummary(settings: settings)
        var lifetimes = SoakLifetimes(seconds: settings.lifetime, seed: settings.seed)
        var live: [Int: Live] = [:]
        var nextIndex = 0

        // Starts calls up to `count` (their lifetimes count from now); returns how many failed to set up.
        func fill(to count: Int) async -> Int {
            let (started, failed) = await generator.rampUp(from: nextIndex, to: nextIndex + count - live.count)
            nextIndex += started.count + failed
            for call in started {
                let now = Instant.now()
                let lifetime = lifetimes.seconds(of: call.index)
                live[call.index] = Live(
                    call: call, endsAt: now + .milliseconds(Int64(lifetime * 1000)), last: await call.counters())
            }
            return failed
        }

        // The bridge's memory at 0, half and all calls, each after a settling pause. "Idle" is after one call
        // came and went, so what the first call starts once (event loops, NSS, DTLS context) is not counted
        // per call, and the descriptors and threads after the soak compare with a bridge in the same state.
        summary.setupFailures += await fill(to: 1)
        for entry in live.values { await entry.call.close() }
        live = [:]
        try await Task.sleep(for: .seconds(3))
        summary.bridgeIdle = ProcessResources.read(pid: bridge.pid)
        for count in [settings.calls / 2, settings.calls] {
            summary.setupFailures += await fill(to: count)
            try await Task.sleep(for: .seconds(5))
            summary.bridgeMemoryByCalls.append(
                .init(calls: live.count, rssMb: ProcessResources.read(pid: bridge.pid).residentBytes / 1_048_576))
        }
        summary.setPerCallMemory(idleRssMb: summary.bridgeIdle.residentBytes / 1_048_576)
        print(
            "bridge RSS by calls: idle \(fmt(summary.bridgeIdle.residentBytes / 1_048_576, 1)) MB, "
                + summary.bridgeMemoryByCalls.map { "\($0.calls): \(fmt($0.rssMb, 1)) MB" }.joined(separator: ", "))

        // Churn: the lifetimes of the first calls count from here too.
        let began = Instant.now()
        for index in live.keys {
            live[index]!.endsAt = began + .milliseconds(Int64(lifetimes.seconds(of: index) * 1000))
        }
        let first = Array(live.keys)
        var previous = try await Snapshot.take(bridge: bridge, calls: first.map { live[$0]!.call }, clientLoops: loops)
        for (index, counters) in zip(first, previous.calls) { live[index]!.last = counters }
        var ended: [(CallCounters, CallCounters)] = []
        var nextSample = began + .milliseconds(Int64(settings.sampleEvery * 1000))
        let end = began + .milliseconds(Int64(settings.duration * 1000))
        print(
            "| t s | calls | done | bridge RSS MB | fds | threads | CPU % | lag ms | gen RSS MB | fds | threads | CPU % | lag ms | owed pkts | lost: bridge CPU | gen CPU | other |"
        )
        print("|" + String(repeating: "---|", count: 17))
        fflush(nil)
        while Instant.now() < end {
            let now = Instant.now()
            for (index, entry) in live where entry.endsAt <= now {
                ended.append((entry.last, await entry.call.counters()))
                await entry.call.close()
                live[index] = nil
                summary.callsCompleted += 1
            }
            summary.setupFailures += await fill(to: settings.calls)
            if Instant.now() >= nextSample {
                let order = Array(live.keys)
                let snapshot = try await Snapshot.take(
                    bridge: bridge, calls: order.map { live[$0]!.call }, clientLoops: loops)
                var pairs = ended
                for (index, counters) in zip(order, snapshot.calls) {
                    pairs.append((live[index]!.last, counters))
                    live[index]!.last = counters
                }
                let step = StepResult(calls: live.count, from: previous, to: snapshot, pairs: pairs)
                let sample = SoakSample(
                    t: (snapshot.at - began).inSeconds, liveCalls: live.count, step: step, from: previous,
                    to: snapshot, callsCompleted: summary.callsCompleted)
                summary.samples.append(sample)
                print(sample.tableRow)
                fflush(nil)
                previous = snapshot
                ended = []
                nextSample = nextSample + .milliseconds(Int64(settings.sampleEvery * 1000))
            }
            try await Task.sleep(for: .milliseconds(200))
        }

        // Everyone hangs up; the bridge must let go of every call and its descriptors and threads.
        for entry in live.values { await entry.call.close() }
        try await Task.sleep(for: .seconds(3))
        summary.bridgeAfter = ProcessResources.read(pid: bridge.pid)
        summary.bridgeCallsLeft = try await BridgeCounters.fetch(port: bridge.port).activeCalls
        summary.bridgeCallsEnded = try await BridgeCounters.fetch(port: bridge.port).callsEnded
        // The bridge trims its heap 5 s after calls end, at most every 30 s (HeapTrimSchedule): its RSS once that
        // has happened.
        try await Task.sleep(for: .seconds(37))
        summary.bridgeRssSettledMb = ProcessResources.read(pid: bridge.pid).residentBytes / 1_048_576
        print(
            "bridge RSS after every call hung up: \(fmt(summary.bridgeAfter.residentBytes / 1_048_576, 1)) MB at 3 s, "
                + "\(fmt(summary.bridgeRssSettledMb, 1)) MB at 40 s (idle \(fmt(summary.bridgeIdle.residentBytes / 1_048_576, 1)) MB)"
        )
        summary.finish()
        return summary
    }
}

func fmt(_ value: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", value) }
