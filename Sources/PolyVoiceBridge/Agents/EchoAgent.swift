// `echo[:delay_ms]`: the caller's audio comes back after a fixed delay.
import PolyCore

/// Returns the caller's audio `delay` later (a preallocated ring; no allocation per frame).
public final class EchoAgent: BridgeAgent {
    private var ring: [Int16]
    private var position = 0
    private let recorder: CallRecorder?
    public let mediaProfile: AgentMediaProfile

    /// `delayMilliseconds` is rounded to whole samples at the profile's rate. The media profile defaults to
    /// the server's (`AgentMediaProfile.server`: wideband at 16 kHz, cheaper encoder, no playout time-stretch).
    public init(delayMilliseconds: Int = 0, recorder: CallRecorder? = nil, mediaProfile: AgentMediaProfile = .server) {
        ring = [Int16](repeating: 0, count: max(0, delayMilliseconds) * mediaProfile.sampleRate / 1000)
        self.recorder = recorder
        self.mediaProfile = mediaProfile
    }

    public func process(
        inbound: UnsafeBufferPointer<Int16>, outbound: UnsafeMutableBufferPointer<Int16>, at now: Instant
    ) {
        recorder?.append(inbound)
        let count = min(inbound.count, outbound.count)
        guard !ring.isEmpty else {
            for index in 0..<count { outbound[index] = inbound[index] }
            return
        }
        ring.withUnsafeMutableBufferPointer { ring in
            for index in 0..<count {
                outbound[index] = ring[position]
                ring[position] = inbound[index]
                position = position + 1 == ring.count ? 0 : position + 1
            }
        }
    }

    public func pollEvent() -> AgentEvent? { nil }

    public func finish(at now: Instant) throws { try recorder?.finish(sampleRate: mediaProfile.sampleRate) }
}
