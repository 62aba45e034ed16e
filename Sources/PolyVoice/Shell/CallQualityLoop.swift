// Once a second: a stats snapshot and the mic level into the QualityMonitor; warnings out.
import PolyMedia

/// Samples a call's quality every second while its media exists.
final class CallQualityLoop: Sendable {
    private let task: Task<Void, Never>

    init(shell: CallShell, meters: CallAudioMeters, outputs: CallOutputs, interval: Duration = .seconds(1)) {
        task = Task {
            var monitor = QualityMonitor()
            var previous = MediaStats()
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                let stats = await shell.stats()
                guard stats.outboundRtp.packetsSent > 0 || stats.inboundRtp.packetsReceived > 0 else { continue }
                let sample = Self.sample(stats, since: previous, inputLevel: meters.levels.inputDBFS)
                previous = stats
                for event in monitor.add(sample) { outputs.warnings.yield(event) }
                outputs.setQuality(
                    CallQuality(
                        mos: monitor.latestMOS, lossFraction: sample.lossFraction, activeWarnings: monitor.active))
            }
        }
    }

    func stop() { task.cancel() }

    /// One sample from two snapshots a second apart.
    static func sample(_ stats: MediaStats, since previous: MediaStats, inputLevel: Double) -> QualitySample {
        let received = Int64(stats.inboundRtp.packetsReceived) - Int64(previous.inboundRtp.packetsReceived)
        let lost = max(0, stats.inboundRtp.packetsLost - previous.inboundRtp.packetsLost)
        let expected = max(0, received) + lost
        let loss = expected > 0 ? Double(lost) / Double(expected) : 0
        let (now, before) = (stats.inboundRtp, previous.inboundRtp)
        // Playout's share of the samples played since the last sample (counters restart with a new stream).
        func share(_ count: UInt64, _ previousCount: UInt64) -> Double {
            let played = now.totalSamplesReceived &- before.totalSamplesReceived
            guard now.totalSamplesReceived > before.totalSamplesReceived, count >= previousCount else { return 0 }
            return min(Double(count - previousCount) / Double(played), 1)
        }
        return QualitySample(
            rtt: stats.remoteInboundRtp.roundTripTime.map { .milliseconds(Int64($0 * 1000)) },
            jitter: .milliseconds(Int64(stats.inboundRtp.jitter * 1000)), lossFraction: loss,
            inputLevelDBFS: inputLevel, concealedFraction: share(now.concealedSamples, before.concealedSamples),
            stretchedFraction: share(
                now.insertedSamplesForDeceleration + now.removedSamplesForAcceleration,
                before.insertedSamplesForDeceleration + before.removedSamplesForAcceleration))
    }
}
