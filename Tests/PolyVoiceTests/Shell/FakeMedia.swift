// Media doubles for shell tests over real sockets: the client's CallMedia and the bridge's media session
// exchange placeholder SDP; the client side reports ICE/DTLS progress and inbound media on its own.
import Foundation
import PolyCore
import PolyMedia
import PolyVoiceBridge
import Synchronization

@testable import PolyVoice

/// A shared, ordered log of what the doubles were asked to do.
final class MediaLog: Sendable {
    private let entries = Mutex<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
    func count(_ entry: String) -> Int { all.filter { $0 == entry }.count }
}

/// The client side: connects as soon as the answer is applied (unless `connects` is false) and then
/// reports inbound media every 100 ms until closed.
final class FakeCallMedia: CallMedia {
    let log: MediaLog
    private let onEvent: @Sendable (CallMediaEvent) -> Void
    private let connects: Bool
    private let flowing = Mutex<Task<Void, Never>?>(nil)

    init(setup: CallMediaSetup, log: MediaLog, connects: Bool) {
        self.log = log
        self.onEvent = setup.onEvent
        self.connects = connects
    }

    static func factory(log: MediaLog, connects: Bool = true) -> CallMediaFactory {
        { setup in FakeCallMedia(setup: setup, log: log, connects: connects) }
    }

    func createOffer() async throws -> (sdp: String, mid: String) {
        log.add("createOffer")
        return ("fake-offer", "0")
    }

    func applyAnswer(_ sdp: String) async throws {
        log.add("applyAnswer \(sdp)")
        guard connects else { return }
        let onEvent = onEvent
        onEvent(.iceConnected)
        onEvent(.connected)
        flowing.withLock {
            $0 = Task {
                while !Task.isCancelled {
                    onEvent(.mediaFlowing)
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
        }
    }

    func applyOffer(_ sdp: String) async throws -> String {
        log.add("applyOffer \(sdp)")
        return "fake-pull-answer"
    }

    func restartICE() async throws -> String {
        log.add("restartICE")
        return "fake-restart-offer"
    }

    func applyRestartAnswer(_ sdp: String) async throws { log.add("applyRestartAnswer") }
    func keepChecking() async { log.add("keepChecking") }
    func usesLocalAddress(_ ip: String) async -> Bool { false }
    func setMuted(_ muted: Bool) async { log.add("setMuted \(muted)") }

    func sendDTMF(_ digits: String, duration: Duration) async throws(DTMFError) -> DTMFMethod {
        log.add("sendDTMF \(digits)")
        return .inband
    }
    func flushPlayout() async { log.add("flushPlayout") }

    func stats() async -> MediaStats {
        var stats = MediaStats()
        stats.outboundRtp.packetsSent = 50
        stats.inboundRtp.packetsReceived = 50
        return stats
    }

    func close() async {
        flowing.withLock { $0?.cancel() }
        log.add("close")
    }
}

/// The bridge side: answers any offer and offers a pull once an offer was applied (and `connectDelay` passed:
/// a real bridge sees media connected a moment after the client and refuses a pull until then).
final class FakeBridgeMedia: BridgeMediaSession {
    let context: BridgeMediaContext
    let log: MediaLog
    private let connectDelay: Duration
    private let connectedAt = Mutex<Instant?>(nil)

    init(context: BridgeMediaContext, log: MediaLog, connectDelay: Duration = .zero) {
        self.context = context
        self.log = log
        self.connectDelay = connectDelay
    }

    func applyOffer(_ sdp: String, mid: String?) throws(BridgeMediaError) -> String {
        log.add("bridge applyOffer \(sdp)")
        connectedAt.withLock { $0 = $0 ?? Instant.now() + connectDelay }
        return "fake-answer"
    }

    private var isConnected: Bool { connectedAt.withLock { $0.map { $0 <= Instant.now() } ?? false } }

    func createPullOffer() throws(BridgeMediaError) -> String {
        log.add("bridge createPullOffer")
        return "fake-pull-offer"
    }

    func applyPullAnswer(_ sdp: String) throws(BridgeMediaError) { log.add("bridge applyPullAnswer \(sdp)") }

    var stats: BridgeMediaStats {
        BridgeMediaStats(
            isConnected: isConnected, lastPacketAt: Instant.now(), packetsReceived: 1,
            packetsSent: 1, packetsLost: 0, jitterSeconds: 0, concealedSeconds: 0)
    }

    func close() { log.add("bridge close") }
}

/// The bridge sessions made so far, so a test can emit agent events on a call.
final class FakeBridgeSessions: Sendable {
    private let sessions = Mutex<[FakeBridgeMedia]>([])
    let log: MediaLog
    let connectDelay: Duration

    init(log: MediaLog, connectDelay: Duration = .zero) {
        self.log = log
        self.connectDelay = connectDelay
    }

    var factory: BridgeMediaFactory {
        BridgeMediaFactory { context throws(BridgeMediaError) in
            let session = FakeBridgeMedia(context: context, log: self.log, connectDelay: self.connectDelay)
            self.sessions.withLock { $0.append(session) }
            return session
        }
    }

    var last: FakeBridgeMedia? { sessions.withLock { $0.last } }
}
