// The real-time shell of the loopback: a wall-clock 20 ms tick drives source → pipeline → sink until the
// duration is up or Ctrl-C.
import Dispatch
import Glibc
import PolyAudio
import PolyCore
import PolyVoiceTesting
import Synchronization

struct RealTimeLoop {
    let configuration: LoopbackConfiguration
    let source: any AudioFrameSource
    let sink: any AudioFrameSink
    let seconds: Double

    typealias Status = (_ stats: LoopbackStatistics, _ elapsed: Double, _ total: Double) -> Void

    /// Runs until `seconds` have passed or SIGINT/SIGTERM; `status` is called every 200 ms.
    func run(status: Status?) throws -> (stats: LoopbackStatistics, elapsed: Double) {
        let stop = Interruption()
        defer { stop.restore() }
        let start = Instant.now()
        var pipeline = try LoopbackPipeline(configuration, start: start)
        let frameSamples = AudioFrameFormat.samplesPerFrame
        var captured = [Int16](repeating: 0, count: frameSamples)
        var played = [Int16](repeating: 0, count: frameSamples)
        let ticks = Int((seconds * 50).rounded(.up))
        var tick = 0
        while tick < ticks && !stop.requested {
            let due = start + .milliseconds(20 * Int64(tick))
            let wait = due - Instant.now()
            if wait > .zero { usleep(UInt32(wait.totalNanoseconds / 1000)) }
            // The frame's time is its slot, not when this thread got to run: a late wake-up (a loaded machine)
            // is absorbed by the device rings, and must not look like network jitter to the jitter buffer.
            captured.withUnsafeMutableBufferPointer { _ = source.read(into: $0) }
            try pipeline.capture(captured, at: due)
            played.withUnsafeMutableBufferPointer { _ = pipeline.play(at: due, into: $0) }
            played.withUnsafeBufferPointer { sink.write($0) }
            tick += 1
            if tick % 10 == 0 { status?(pipeline.statistics, Double(tick) / 50, seconds) }
        }
        return (pipeline.statistics, Double(tick) / 50)
    }
}

/// Catches SIGINT and SIGTERM while the loop runs, so Ctrl-C ends it cleanly (devices closed, stats printed).
private final class Interruption {
    private final class Flag: Sendable {
        let raised = Atomic<Bool>(false)
    }
    private let flag = Flag()
    private let sources: [any DispatchSourceSignal]

    init() {
        let flag = self.flag
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { flag.raised.store(true, ordering: .releasing) }
            source.resume()
            return source
        }
    }

    var requested: Bool { flag.raised.load(ordering: .acquiring) }

    /// Puts the default handlers back (a second Ctrl-C after the loop ends the process at once).
    func restore() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
