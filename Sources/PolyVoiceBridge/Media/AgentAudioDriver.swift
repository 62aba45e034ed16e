// Connects an agent to a MediaTransport's 20 ms clock: the sink gets the caller's frame, the source
// sends the agent's reply one tick later. Runs on the transport's loop thread only.
import PolyAudio
import PolyCore
import PolyMedia
import PolySession
import Synchronization

/// The transport's audio source and sink around one agent.
///
/// `@unchecked Sendable`: `agent`, `outbound` and `ticks` are touched only on the loop thread (the
/// transport calls `read` and `write` there), and by `finish` after the transport has closed.
final class AgentAudioDriver: AudioFrameSource, AudioFrameSink, @unchecked Sendable {
    private let agent: any BridgeAgent
    private let emit: @Sendable (AgentEvent) -> Void
    /// One 20 ms frame at the agent's rate.
    private let frameSamples: Int
    private var outbound: [Int16]
    private var silence: [Int16]
    /// Called once per tick with the time (the session keeps its liveness and counters current).
    private let onTick: @Sendable (Instant) -> Void

    init(
        agent: any BridgeAgent, emit: @escaping @Sendable (AgentEvent) -> Void,
        onTick: @escaping @Sendable (Instant) -> Void
    ) {
        self.agent = agent
        frameSamples = AgentAudio.frameSamples(atRate: agent.mediaProfile.sampleRate)
        outbound = [Int16](repeating: 0, count: frameSamples)
        silence = outbound
        self.emit = emit
        self.onTick = onTick
    }

    let name = "agent"
    /// An agent talks until the call ends.
    let endOfStream = false

    /// The agent's frame produced at the previous tick.
    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Int {
        outbound.withUnsafeBufferPointer { out in
            let copied = min(frame.count, out.count)
            if copied > 0, let target = frame.baseAddress, let source = out.baseAddress {
                target.update(from: source, count: copied)
            }
            if copied < frame.count { UnsafeMutableBufferPointer(rebasing: frame[copied...]).update(repeating: 0) }
        }
        return frame.count
    }

    /// The caller's frame (decoded, concealed or silence): the agent answers into `outbound`.
    func write(_ frame: UnsafeBufferPointer<Int16>) {
        let now = Instant.now()
        if frame.count == frameSamples {
            outbound.withUnsafeMutableBufferPointer { agent.process(inbound: frame, outbound: $0, at: now) }
        } else {
            silence.withUnsafeBufferPointer { input in
                outbound.withUnsafeMutableBufferPointer { agent.process(inbound: input, outbound: $0, at: now) }
            }
        }
        while let event = agent.pollEvent() { emit(event) }
        onTick(now)
    }

    /// A DTMF digit from the caller (the transport's events arrive on the loop thread, like `write`).
    func receiveDTMF(_ dtmf: ReceivedDTMF) { agent.receiveDTMF(dtmf, at: .now()) }

    /// The transport closes its source and sink; the agent's files are written by `finish`.
    func close() {}

    /// After the transport closed: recordings and timelines.
    func finish() throws { try agent.finish(at: .now()) }
}
