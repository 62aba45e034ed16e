// How `polyvoice call` shows a call: a live status line (terminal), plain lines (pipe), or NDJSON.
import FoundationEssentials
import Glibc
import PolyCore
import PolyMedia
import PolyVoice
import Synchronization

/// The live status line on a terminal, plain lines otherwise; a summary at the end.
final class TextCallReporter: CallReporter {
    private let isTerminal = isatty(STDOUT_FILENO) != 0
    private let warnings = Mutex<Set<QualityWarning>>([])
    private let quiet: Bool

    /// - Parameter quiet: only connected and the end, no per-second lines, no summary (the demo prints its own).
    init(quiet: Bool = false) { self.quiet = quiet }

    func state(_ state: CallState, elapsed: Duration) {
        if quiet, !state.isTerminal, state != .connected { return }
        emit("\(Self.clock(elapsed))  \(state)", live: false)
    }

    func tick(_ snapshot: CallSnapshot) {
        guard !quiet else { return }
        emit(Self.statusLine(snapshot, warnings: warnings.withLock { $0 }), live: true)
    }

    func warning(_ event: QualityWarningEvent, elapsed: Duration) {
        let text: String
        switch event {
        case .raised(let warning):
            warnings.withLock { _ = $0.insert(warning) }
            text = "warning: \(warning)"
        case .cleared(let warning):
            warnings.withLock { _ = $0.remove(warning) }
            text = "cleared: \(warning)"
        }
        if !quiet { emit("\(Self.clock(elapsed))  \(text)", live: false) }
    }

    func outputFailed(_ message: String, elapsed: Duration) {
        // On standard error, even when quiet: the recording the user asked for is incomplete.
        if isTerminal { writeOut("\r\u{1B}[2K") }
        printError(
            "\(Self.clock(elapsed))  error: --output \(message); recording stopped (the file holds a valid WAV "
                + "up to here), the call goes on")
    }

    func summary(_ outcome: CallOutcome) {
        guard !quiet else { return }
        let lead = isTerminal && !quiet ? "\n" : ""
        writeOut(lead + Self.summaryLines(outcome).joined(separator: "\n") + "\n")
    }

    private func emit(_ line: String, live: Bool) {
        // On a terminal, live lines overwrite each other; events get a line of their own. A live line
        // wider than the terminal would wrap, and "\r" then only rewrites its last row: cut it to fit.
        guard isTerminal else { return writeOut(line + "\n") }
        writeOut("\r\u{1B}[2K" + (live ? Self.fitted(line, columns: Self.terminalColumns()) : line + "\n"))
    }

    /// `line` cut to `columns - 1` characters (ending in "…" when cut); unchanged without a width.
    static func fitted(_ line: String, columns: Int?) -> String {
        guard let columns, columns > 1, line.count > columns - 1 else { return line }
        return String(line.prefix(columns - 2)) + "…"
    }

    /// The terminal's width in columns, when stdout is a terminal that reports one.
    static func terminalColumns() -> Int? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    static func statusLine(_ snapshot: CallSnapshot, warnings: Set<QualityWarning>) -> String {
        let stats = snapshot.stats
        var parts = [
            "\(clock(snapshot.elapsed))", "\(snapshot.state)",
            "mic \(meter(snapshot.levels.inputDBFS))", "spk \(meter(snapshot.levels.outputDBFS))",
        ]
        if let rtt = stats.remoteInboundRtp.roundTripTime { parts.append(String(cFormat: "rtt %.0f ms", rtt * 1000)) }
        parts.append(String(cFormat: "jitter %.1f ms", stats.inboundRtp.jitter * 1000))
        parts.append(String(cFormat: "loss %.1f%%", snapshot.quality.lossFraction * 100))
        if let mos = snapshot.quality.mos { parts.append(String(cFormat: "MOS %.2f", mos)) }
        // Warnings before the path: a narrow terminal cuts the end of the line.
        if !warnings.isEmpty { parts.append("⚠ " + warnings.map(\.description).sorted().joined(separator: ", ")) }
        if let path = stats.selectedCandidatePair { parts.append(pathName(path)) }
        return parts.joined(separator: "  ")
    }

    /// "direct" or "relay/udp" (through a TURN server, and how it is reached).
    static func pathName(_ path: CandidatePairStats) -> String {
        path.localCandidateType == "relay" ? "relay/\(path.relayProtocol ?? "?")" : "direct"
    }

    /// Eight cells from -60 dBFS to 0 dBFS.
    static func meter(_ dBFS: Double) -> String {
        let filled = max(0, min(8, Int(((dBFS + 60) / 60 * 8).rounded())))
        return String(repeating: "▮", count: filled) + String(repeating: "▯", count: 8 - filled)
    }

    static func clock(_ duration: Duration) -> String {
        let seconds = Int(duration.components.seconds)
        return String(cFormat: "%02ld:%02ld", seconds / 60, seconds % 60)
    }

    static func summaryLines(_ outcome: CallOutcome) -> [String] {
        var lines: [String] = []
        switch outcome.finalState {
        case .failed(let error): lines.append("Call failed: \(error)")
        default:
            lines.append(String(cFormat: "Call ended after %.1f s connected", outcome.connectedDuration.seconds))
        }
        if let setup = outcome.setupTime {
            lines.append(String(cFormat: "  setup (provision → connected): %.0f ms", setup.seconds * 1000))
        }
        let stats = outcome.stats
        if stats.outboundRtp.packetsSent > 0 || stats.inboundRtp.packetsReceived > 0 {
            let inbound = stats.inboundRtp
            lines.append(
                "  packets: sent \(stats.outboundRtp.packetsSent), received \(inbound.packetsReceived), "
                    + "lost \(max(0, inbound.packetsLost))")
            var figures = [String(cFormat: "jitter %.1f ms", inbound.jitter * 1000)]
            if let rtt = stats.remoteInboundRtp.roundTripTime {
                figures.append(String(cFormat: "RTT %.1f ms", rtt * 1000))
            }
            figures.append(String(cFormat: "concealed %.2f s", Double(inbound.concealedSamples) / 48_000))
            if let mos = outcome.quality.mos { figures.append(String(cFormat: "MOS %.2f", mos)) }
            lines.append("  " + figures.joined(separator: ", "))
        }
        let audio = outcome.audio
        if audio.capturedSamples > 0 || audio.playedSamples > 0 {
            var figures = [
                String(cFormat: "captured %.1f s", Double(audio.capturedSamples) / 48_000),
                String(cFormat: "played %.1f s", Double(audio.playedSamples) / 48_000),
                "voice processing \(audio.isProcessingAudio ? "on" : "off")",
            ]
            let underruns = audio.inputUnderruns + audio.outputUnderruns
            if underruns > 0 { figures.append("device underruns \(underruns)") }
            lines.append("  audio: " + figures.joined(separator: ", "))
        }
        if let failure = audio.outputError { lines.append("  output incomplete: \(failure)") }
        return lines
    }
}

/// One JSON object per line: `state`, `stats` (each second), `warning`, `summary`.
final class JSONCallReporter: CallReporter {
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    private let lock = Mutex<Void>(())

    struct StateEvent: Encodable {
        var type = "state"
        var elapsed: Double
        var state: String
        var error: String?
    }

    struct StatsEvent: Encodable {
        var type = "stats"
        var elapsed: Double
        var state: String
        var micDBFS: Double
        var speakerDBFS: Double
        var rttMs: Double?
        var jitterMs: Double
        var lossPercent: Double
        var mos: Double?
        var packetsSent: UInt64
        var packetsReceived: UInt64
        var packetsLost: Int64
        var concealedSamples: UInt64
        var warnings: [String]
        var audio: AudioFigures
        /// The selected candidate pair (W3C candidate types, relay protocol), once ICE chose one.
        var candidatePair: CandidatePairStats?
        /// The jitter buffer so far, and the far end's RTP time received (seconds; against `playout`'s samples
        /// and `audio.playedSamples` it shows drift between the clocks).
        var playout: PlayoutFigures
        var rtpSecondsReceived: Double
    }

    /// Samples through the audio endpoints (48 kHz) and device health.
    struct AudioFigures: Encodable {
        var capturedSamples: Int
        var playedSamples: Int
        var inputDeviceSamples: Int
        var outputDeviceSamples: Int
        var inputUnderruns: Int
        var inputOverruns: Int
        var outputUnderruns: Int
        var outputOverruns: Int
        var processing: Bool

        init(_ counters: CallAudioCounters) {
            capturedSamples = counters.capturedSamples
            playedSamples = counters.playedSamples
            inputDeviceSamples = counters.inputDeviceSamples
            outputDeviceSamples = counters.outputDeviceSamples
            inputUnderruns = counters.inputUnderruns
            inputOverruns = counters.inputOverruns
            outputUnderruns = counters.outputUnderruns
            outputOverruns = counters.outputOverruns
            processing = counters.isProcessingAudio
        }
    }

    /// The jitter buffer's playout counters (W3C inbound-rtp names; samples at the playout rate) and mean delays.
    struct PlayoutFigures: Encodable {
        var totalSamplesReceived: UInt64
        var concealedSamples: UInt64
        var silentConcealedSamples: UInt64
        var concealmentEvents: UInt64
        var insertedSamplesForDeceleration: UInt64
        var removedSamplesForAcceleration: UInt64
        var packetsDiscarded: UInt64
        /// Samples emitted from decoded packets: the weight of the mean delays (for means over an interval).
        var emittedSamples: UInt64
        /// Mean time from arrival to playout of the emitted samples, and the mean target over them.
        var meanDelayMs: Double
        var meanTargetDelayMs: Double
        /// What the target is made of at this moment (see docs/JITTER.md), and the playout delay.
        var targetParts: TargetDelayParts?

        init(_ inbound: InboundRTPStats) {
            totalSamplesReceived = inbound.totalSamplesReceived
            concealedSamples = inbound.concealedSamples
            silentConcealedSamples = inbound.silentConcealedSamples
            concealmentEvents = inbound.concealmentEvents
            insertedSamplesForDeceleration = inbound.insertedSamplesForDeceleration
            removedSamplesForAcceleration = inbound.removedSamplesForAcceleration
            packetsDiscarded = inbound.packetsDiscarded
            emittedSamples = inbound.jitterBufferEmittedCount
            let emitted = Double(max(inbound.jitterBufferEmittedCount, 1))
            meanDelayMs = inbound.jitterBufferDelay / emitted * 1000
            meanTargetDelayMs = inbound.jitterBufferTargetDelay / emitted * 1000
            targetParts = inbound.targetDelayParts
        }
    }

    /// The WAV output could not be written (`source` is "output"); the call goes on.
    struct ErrorEvent: Encodable {
        var type = "error"
        var elapsed: Double
        var source = "output"
        var error: String
    }

    struct WarningEvent: Encodable {
        var type = "warning"
        var elapsed: Double
        var warning: String
        var raised: Bool
    }

    struct SummaryEvent: Encodable {
        var type = "summary"
        var result: String
        var error: String?
        var exitCode: Int32
        var setupMs: Double?
        var connectedSeconds: Double
        var packetsSent: UInt64
        var packetsReceived: UInt64
        var packetsLost: Int64
        var jitterMs: Double
        var rttMs: Double?
        var concealedSamples: UInt64
        var mos: Double?
        var playout: PlayoutFigures
        var audio: AudioFigures
        var candidatePair: CandidatePairStats?
        /// Why the WAV output stopped early (disk full, …); nil when it was written to the end.
        var outputError: String?
    }

    func state(_ state: CallState, elapsed: Duration) {
        var error: String?
        if case .failed(let failure) = state { error = failure.description }
        write(StateEvent(elapsed: elapsed.seconds, state: Self.name(state), error: error))
    }

    func tick(_ snapshot: CallSnapshot) {
        let stats = snapshot.stats
        write(
            StatsEvent(
                elapsed: snapshot.elapsed.seconds, state: Self.name(snapshot.state),
                micDBFS: snapshot.levels.inputDBFS, speakerDBFS: snapshot.levels.outputDBFS,
                rttMs: stats.remoteInboundRtp.roundTripTime.map { $0 * 1000 }, jitterMs: stats.inboundRtp.jitter * 1000,
                lossPercent: snapshot.quality.lossFraction * 100, mos: snapshot.quality.mos,
                packetsSent: stats.outboundRtp.packetsSent, packetsReceived: stats.inboundRtp.packetsReceived,
                packetsLost: stats.inboundRtp.packetsLost, concealedSamples: stats.inboundRtp.concealedSamples,
                warnings: snapshot.quality.activeWarnings.map(\.rawValue).sorted(), audio: AudioFigures(snapshot.audio),
                candidatePair: stats.selectedCandidatePair, playout: PlayoutFigures(stats.inboundRtp),
                rtpSecondsReceived: stats.inboundRtp.mediaSecondsReceived))
    }

    func warning(_ event: QualityWarningEvent, elapsed: Duration) {
        switch event {
        case .raised(let warning):
            write(WarningEvent(elapsed: elapsed.seconds, warning: warning.rawValue, raised: true))
        case .cleared(let warning):
            write(WarningEvent(elapsed: elapsed.seconds, warning: warning.rawValue, raised: false))
        }
    }

    func summary(_ outcome: CallOutcome) {
        let stats = outcome.stats
        var error: String?
        if case .failed(let failure) = outcome.finalState { error = failure.description }
        write(
            SummaryEvent(
                result: Self.name(outcome.finalState), error: error, exitCode: outcome.exitCode,
                setupMs: outcome.setupTime.map { $0.seconds * 1000 },
                connectedSeconds: outcome.connectedDuration.seconds,
                packetsSent: stats.outboundRtp.packetsSent, packetsReceived: stats.inboundRtp.packetsReceived,
                packetsLost: stats.inboundRtp.packetsLost, jitterMs: stats.inboundRtp.jitter * 1000,
                rttMs: stats.remoteInboundRtp.roundTripTime.map { $0 * 1000 },
                concealedSamples: stats.inboundRtp.concealedSamples, mos: outcome.quality.mos,
                playout: PlayoutFigures(stats.inboundRtp), audio: AudioFigures(outcome.audio),
                candidatePair: stats.selectedCandidatePair, outputError: outcome.audio.outputError))
    }

    func outputFailed(_ message: String, elapsed: Duration) {
        write(ErrorEvent(elapsed: elapsed.seconds, error: message))
    }

    private func write(_ value: some Encodable) {
        guard let data = try? encoder.encode(value) else { return }
        lock.withLock { _ in writeOut(String(decoding: data, as: UTF8.self) + "\n") }
    }

    static func name(_ state: CallState) -> String {
        switch state {
        case .idle: "idle"
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting: "reconnecting"
        case .ended: "ended"
        case .failed: "failed"
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Unbuffered stdout (status lines must show at once, also through pipes).
func writeOut(_ text: String) {
    StandardStream.output.write(text)
}
