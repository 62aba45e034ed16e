// What a call publishes: its states, audio states, quality warnings and latest quality figures.
import Synchronization

/// The broadcasters behind `PolyCall`'s streams, shared by the call and its driver.
final class CallOutputs: Sendable {
    let states = ReplayingStream<CallState>(initial: .idle, isTerminal: { $0.isTerminal })
    let audioStates: ReplayingStream<AudioState>
    let warnings = ReplayingStream<QualityWarningEvent>()
    private let quality = Mutex<CallQuality>(CallQuality())

    init(audioState: AudioState) {
        audioStates = ReplayingStream(initial: audioState)
    }

    var latestQuality: CallQuality { quality.withLock { $0 } }
    func setQuality(_ value: CallQuality) { quality.withLock { $0 = value } }
}

/// The quality figures of the last one-second sample.
public struct CallQuality: Sendable, Hashable {
    /// E-model MOS estimate (1...4.5), once a sample was taken.
    public var mos: Double?
    /// Inbound packet loss over the last second (0...1).
    public var lossFraction: Double
    /// Warnings currently raised.
    public var activeWarnings: Set<QualityWarning>

    public init(mos: Double? = nil, lossFraction: Double = 0, activeWarnings: Set<QualityWarning> = []) {
        self.mos = mos
        self.lossFraction = lossFraction
        self.activeWarnings = activeWarnings
    }
}
