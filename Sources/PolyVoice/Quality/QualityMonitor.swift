// Turns one-second statistics samples into raised/cleared quality warnings, with hysteresis.
import PolyCore

/// Watches per-second statistics and raises or clears `QualityWarning`s.
///
/// Network and playout warnings (RTT, jitter, loss, MOS, concealment) are raised when the condition holds in `raiseCount`
/// (3) of the last `window` (5) samples and cleared only when it holds in at most `clearCount` (1)
/// of them. The constant-input-level warning is raised when the microphone level stayed within
/// `constantLevelTolerance` (0.1 dB) over `constantLevelSamples` (10) consecutive samples and
/// cleared when it moved by more than `constantLevelClearance` (0.5 dB) within that window.
/// Sans-IO: the shell calls `add(_:)` once a second and publishes what it returns.
public struct QualityMonitor: Sendable {
    /// Thresholds and counts; defaults follow Twilio's call-quality warnings.
    public struct Thresholds: Hashable, Sendable {
        public var rtt: Duration = .milliseconds(400)
        public var jitter: Duration = .milliseconds(30)
        public var loss: Double = 0.01
        public var mos: Double = 3.5
        /// Concealed share of the samples played in a second (a single 20 ms concealment is 2 %).
        public var concealment: Double = 0.03
        public var window = 5
        public var raiseCount = 3
        public var clearCount = 1
        public var constantLevelTolerance = 0.1
        public var constantLevelClearance = 0.5
        public var constantLevelSamples = 10

        public init() {}
    }

    public let thresholds: Thresholds
    /// Warnings currently raised.
    public private(set) var active: Set<QualityWarning> = []
    /// The MOS estimate of the latest sample with an RTT.
    public private(set) var latestMOS: Double?

    /// For each network warning, whether the condition held, newest last (at most `window`).
    private var history: [QualityWarning: [Bool]] = [:]
    private var levels: [Double] = []

    public init(thresholds: Thresholds = Thresholds()) {
        self.thresholds = thresholds
    }

    /// The E-model MOS estimate (1…4.5) for these network and playout conditions (for status lines);
    /// `concealed` and `stretched` are the shares of the played samples (see `QualitySample`).
    public static func mosEstimate(
        rtt: Duration, jitter: Duration, loss: Double, concealed: Double = 0, stretched: Double = 0
    ) -> Double {
        EModel.mos(
            rFactor: EModel.rFactor(rtt: rtt, jitter: jitter, loss: loss, concealed: concealed, stretched: stretched))
    }

    /// Feeds one sample; returns the warnings raised and cleared by it, in `QualityWarning` order.
    public mutating func add(_ sample: QualitySample) -> [QualityWarningEvent] {
        var mos: Double?
        if let rtt = sample.rtt {
            mos = Self.mosEstimate(
                rtt: rtt, jitter: sample.jitter, loss: sample.lossFraction, concealed: sample.concealedFraction,
                stretched: sample.stretchedFraction)
            latestMOS = mos
        }
        var events: [QualityWarningEvent] = []
        record(.highRTT, sample.rtt.map { $0 > thresholds.rtt } ?? false, into: &events)
        record(.highJitter, sample.jitter > thresholds.jitter, into: &events)
        record(.highLoss, sample.lossFraction > thresholds.loss, into: &events)
        record(.lowMOS, mos.map { $0 < thresholds.mos } ?? false, into: &events)
        record(.highConcealment, sample.concealedFraction > thresholds.concealment, into: &events)
        recordLevel(sample.inputLevelDBFS, into: &events)
        return events
    }

    private mutating func record(_ warning: QualityWarning, _ bad: Bool, into events: inout [QualityWarningEvent]) {
        var samples = history[warning, default: []]
        samples.append(bad)
        if samples.count > thresholds.window { samples.removeFirst(samples.count - thresholds.window) }
        history[warning] = samples
        let badCount = samples.count { $0 }
        if badCount >= thresholds.raiseCount {
            set(warning, raised: true, into: &events)
        } else if badCount <= thresholds.clearCount {
            set(warning, raised: false, into: &events)
        }
    }

    private mutating func recordLevel(_ reported: Double?, into events: inout [QualityWarningEvent]) {
        // Digital silence is -∞ dBFS: floor it so that a dead, all-zero input counts as constant.
        guard let reported, !reported.isNaN else {
            // Muted or no device: a constant level means nothing.
            levels.removeAll()
            set(.constantInputLevel, raised: false, into: &events)
            return
        }
        levels.append(max(reported, Self.levelFloor))
        if levels.count > thresholds.constantLevelSamples { levels.removeFirst() }
        guard let low = levels.min(), let high = levels.max() else { return }
        let spread = high - low
        if levels.count == thresholds.constantLevelSamples && spread <= thresholds.constantLevelTolerance {
            set(.constantInputLevel, raised: true, into: &events)
        } else if spread > thresholds.constantLevelClearance {
            set(.constantInputLevel, raised: false, into: &events)
        }
    }

    /// Below any real microphone's noise floor (16-bit PCM reaches about -96 dBFS).
    static let levelFloor = -127.0

    private mutating func set(_ warning: QualityWarning, raised: Bool, into events: inout [QualityWarningEvent]) {
        if raised, active.insert(warning).inserted {
            events.append(.raised(warning))
        } else if !raised, active.remove(warning) != nil {
            events.append(.cleared(warning))
        }
    }
}
