// Everything measured at one instant of a step; two snapshots make a step's figures.
import Foundation
import PolyCore
import PolyNet

struct Snapshot {
    var at: Instant
    var server: ProcessCPU
    var client: ProcessCPU
    var serverDrops: UDPDrops
    var clientDrops: UDPDrops
    var serverResources: ProcessResources
    var clientResources: ProcessResources
    /// The generator's event loops' frame-clock lag, summed (the bridge's is in `bridge`).
    var clientLag: EventLoopLagSnapshot
    var machine: MachineCPU
    var bridge: BridgeCounters
    /// Each call's counters, read concurrently (each with its own time: hops onto the loop take a while
    /// on a busy machine).
    var calls: [CallCounters]

    static func take(bridge: BridgeProcess, calls: [LoadCall], clientLoops: [EventLoop] = []) async throws -> Snapshot {
        let at = Instant.now()
        let server = ProcessCPU.read(pid: bridge.pid)
        let client = ProcessCPU.read(pid: getpid())
        let machine = MachineCPU.read()
        var clientLag = EventLoopLagSnapshot()
        for loop in clientLoops { clientLag.add(loop.frameClockLag) }
        let counters = await withTaskGroup(of: (Int, CallCounters).self) { group in
            for (index, call) in calls.enumerated() { group.addTask { (index, await call.counters()) } }
            var counters = [CallCounters](repeating: CallCounters(), count: calls.count)
            for await (index, one) in group { counters[index] = one }
            return counters
        }
        return Snapshot(
            at: at, server: server, client: client, serverDrops: UDPDrops.read(pid: bridge.pid),
            clientDrops: UDPDrops.read(pid: getpid()), serverResources: ProcessResources.read(pid: bridge.pid),
            clientResources: ProcessResources.read(pid: getpid()), clientLag: clientLag, machine: machine,
            bridge: try await .fetch(port: bridge.port), calls: counters)
    }
}

/// One step's figures (deltas between the snapshot after settling and the one after holding).
struct StepResult {
    var calls: Int
    var seconds: Double
    var serverCPU: Double
    var serverLoop: Double
    /// Seconds the bridge's busiest thread waited for a CPU (other processes had it).
    var serverLoopWait: Double
    var clientCPU: Double
    var clientLoop: Double
    var machineBusyCores: Double
    var load: Double
    var expected: Double
    var clientSent: Double
    var serverReceived: Double
    var serverLostGaps: Double
    var serverSent: Double
    var clientReceived: Double
    var clientLostGaps: Double
    var serverDrops: Double
    var clientDrops: Double
    var concealedPercent: Double
    var audiblePercent: Double
    /// Calls that sent or received under 90 % of their 50 packets per second in the window.
    var quietCalls: Int
    /// Packets per second each call received from the bridge (50 owed): minimum, median, maximum.
    var receiveRates: (min: Double, median: Double, max: Double)
    /// Packets the per-call windows may be off by (each read's hop onto the loop, half on each side).
    var uncertainty: Double

    /// A step of the ramp: the same calls in both snapshots, in the same order.
    init(calls: Int, from a: Snapshot, to b: Snapshot) {
        self.init(calls: calls, from: a, to: b, pairs: Array(zip(a.calls, b.calls)))
    }

    /// `pairs`: each call's counters at the interval's start (or its own start) and end (or its own end),
    /// so calls that began or ended inside the interval count for the part they were up.
    init(calls: Int, from a: Snapshot, to b: Snapshot, pairs: [(CallCounters, CallCounters)]) {
        self.calls = calls
        seconds = (b.at - a.at).inSeconds
        (serverCPU, serverLoop) = b.server.since(a.server)
        serverLoopWait = b.server.busiestThreadWait(since: a.server)
        (clientCPU, clientLoop) = b.client.since(a.client)
        machineBusyCores = b.machine.busyCores(since: a.machine)
        load = loadAverage()
        var expected = 0.0
        var uncertainty = 0.0
        var sums = (sent: 0.0, received: 0.0, lost: 0.0, concealed: 0.0, samples: 0.0, frames: 0.0, audible: 0.0)
        var quiet = 0
        var rates: [Double] = []
        for (before, after) in pairs {
            let owed = 50 * (after.at - before.at).inSeconds
            expected += owed
            uncertainty += 50 * (before.uncertainty + after.uncertainty).inSeconds
            let sent = Double(after.sent - before.sent)
            let received = Double(after.received - before.received)
            if sent < 0.9 * owed || received < 0.9 * owed { quiet += 1 }
            rates.append(owed > 0 ? received / owed * 50 : 0)
            sums.sent += sent
            sums.received += received
            sums.lost += Double(after.lost - before.lost)
            sums.concealed += Double(after.concealed - before.concealed)
            sums.samples += Double(after.samples - before.samples)
            sums.frames += Double(after.frames - before.frames)
            sums.audible += Double(after.audible - before.audible)
        }
        self.expected = expected
        self.uncertainty = uncertainty
        quietCalls = quiet
        rates.sort()
        receiveRates = rates.isEmpty ? (0, 0, 0) : (rates[0], rates[rates.count / 2], rates[rates.count - 1])
        clientSent = sums.sent
        serverReceived = b.bridge.received - a.bridge.received
        serverLostGaps = b.bridge.lost - a.bridge.lost
        serverSent = b.bridge.sent - a.bridge.sent
        clientReceived = sums.received
        clientLostGaps = sums.lost
        serverDrops = Double(b.serverDrops.since(a.serverDrops))
        clientDrops = Double(b.clientDrops.since(a.clientDrops))
        concealedPercent = sums.samples > 0 ? sums.concealed / sums.samples * 100 : 0
        audiblePercent = sums.frames > 0 ? sums.audible / sums.frames * 100 : 0
    }

    /// Server→client packets the bridge never sent on time (its 20 ms clock fell behind), from what the
    /// clients got against 50 packets per call-second. Lost ones are counted separately.
    var serverShortfall: Double { max(0, expected - clientReceived - max(0, clientLostGaps)) }

    /// Packets lost because of the server: its sockets overflowed (it did not read in time), it sent
    /// fewer than its clock owes, or its packets vanished without the client's socket dropping them.
    var serverCausedLoss: Double {
        serverDrops + max(0, max(0, clientLostGaps) - clientDrops) + max(0, serverShortfall - tolerance)
    }

    /// What a shortfall must exceed to count: the reads' timing uncertainty, and at least 1 %.
    var tolerance: Double { max(uncertainty, 0.01 * expected) }

    /// The load generator itself fell behind: it sent under 99 % of its packets, its sockets dropped, or
    /// its loop thread was busy over 90 % of the time.
    var clientBehind: Bool {
        clientSent < 0.99 * expected - uncertainty || clientDrops > 0 || clientLoop / seconds > 0.9
    }

    var serverLossPercent: Double { expected > 0 ? serverCausedLoss / (2 * expected) * 100 : 0 }
}
