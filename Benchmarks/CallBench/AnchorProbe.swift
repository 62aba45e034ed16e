// Where the call's input starts on the output's timeline. The call's audio clock, each 20 ms tick, reads one
// input frame (metering its level) and then writes one output frame; a file input is held back until the
// agent's line is connected, so input sample 0 is read at some tick k and everything the tick-locked output
// file holds is offset by k frames. The probe finds k exactly: the input opens with a ramp of distinct
// levels (BenchSignals), and about 10 ms after each output write (mid-tick, when both halves of the tick
// are done) it reads the output's frame count, the input meter, and the count again. A stable count F with
// ramp frame i on the meter means ramp frame i and output frame F - 1 were handled by the same tick, so
// input sample 0 sits at output frame F - 1 - i. Every ramp frame gives one vote; a clear majority decides.
import Foundation
import PolyVoice
import Synchronization

final class AnchorProbe: Sendable {
    private let path: String
    private let headerBytes: Int
    private let call: PolyCall
    private let votes = Mutex<[Int]>([])
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    init(output: URL, call: PolyCall) {
        path = output.path
        self.call = call
        headerBytes = Self.size(of: output.path) ?? 44
    }

    static func size(of path: String) -> Int? {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : nil
    }

    private func frames() -> Int { ((Self.size(of: path) ?? headerBytes) - headerBytes) / (2 * BenchSignals.frame) }

    /// Starts polling on a thread of its own (not the concurrency pool: its timing must not wait for tasks).
    func start() {
        let thread = Thread { [self] in poll() }
        thread.name = "anchor-probe"
        thread.start()
    }

    /// Stops polling; returns the output frame of input sample 0 and how many votes agreed, or nil without a
    /// clear majority. A minority vote is a tick caught between its meter update and its write (the playout
    /// step runs in between), when a late clock brings the next tick into the probe's mid-tick window.
    func stop() -> (frame: Int, votes: Int)? {
        stopped.store(true, ordering: .releasing)
        while !finished.load(ordering: .acquiring) { usleep(1_000) }
        let all = votes.withLock { $0 }
        let counts = Dictionary(all.map { ($0, 1) }, uniquingKeysWith: +)
        guard let (frame, agreeing) = counts.max(by: { $0.value < $1.value }), agreeing >= 3,
            3 * agreeing >= 2 * all.count
        else {
            print("  anchor: no clear majority in votes \(all)")
            return nil
        }
        if agreeing < all.count { print("  anchor: \(agreeing) of \(all.count) votes agree (\(all))") }
        return (frame, agreeing)
    }

    private func poll() {
        defer { finished.store(true, ordering: .releasing) }
        var lastCount = frames()
        var changedAt = DispatchTime.now().uptimeNanoseconds
        var sampled = true
        var seenRamp = false
        while !stopped.load(ordering: .acquiring) {
            usleep(500)
            let count = frames()
            let now = DispatchTime.now().uptimeNanoseconds
            if count != lastCount {
                lastCount = count
                changedAt = now
                sampled = false
                continue
            }
            let sinceWrite = now - changedAt
            guard !sampled, sinceWrite > 8_000_000 else { continue }
            sampled = true
            guard sinceWrite < 14_000_000 else { continue }  // too late in the tick: the next one may be under way
            let before = frames()
            let level = call.levels.inputDBFS
            let after = frames()
            guard before == after, before == count else { continue }
            if let index = BenchSignals.rampIndex(ofLevel: level) {
                seenRamp = true
                votes.withLock { $0.append(before - 1 - index) }
            } else if seenRamp {
                return  // the ramp is over
            }
        }
    }
}
