// The embedded reference bridge (echo agent, 0 ms) CallBench calls; for the lossy scenario its shared
// media port sits behind an ImpairmentRelay and the bridge advertises the relay's address.
import Foundation
import PolyVoiceBridge
import PolyVoiceTesting

final class BenchBridge {
    static let lossPercent = 5.0

    let port: Int
    private let bridge: Bridge
    private let relay: ImpairmentRelay?

    init(token: String, loss: Double?, seed: UInt64) throws {
        guard loss == nil else {
            throw BenchError("the bridge has no shared media port yet (needed to put the relay in front of it)")
        }
        bridge = Bridge(
            configuration: BridgeConfiguration(
                tokens: [token], agent: .echo(delayMilliseconds: 0), media: .transport(), log: BridgeLog(level: .error))
        )
        port = try bridge.start()
        relay = nil
    }

    var relayCounters: RelayCounters? { relay?.counters }

    func stop() {
        relay?.stop()
        bridge.stop()
    }
}
