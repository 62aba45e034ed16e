// The embedded reference bridge (echo agent, 0 ms) CallBench calls. For the lossy scenario the bridge's media
// is one shared UDP port behind an ImpairmentRelay, and the bridge advertises exactly the relay's address, so
// every media datagram of a call (ICE, DTLS, SRTP, RTCP, both ways) crosses the relay.
import Foundation
import PolyNet
import PolyVoiceBridge
import PolyVoiceTesting

final class BenchBridge {
    static let lossPercent = 5.0

    let port: Int
    private let bridge: Bridge
    private let relay: ImpairmentRelay?

    /// `loss`: percent lost uniformly in each direction (nil: no relay, per-call media ports as by default).
    init(token: String, loss: Double?, seed: UInt64) throws {
        var configuration = BridgeConfiguration(
            tokens: [token], agent: .echo(delayMilliseconds: 0), media: .transport(), log: BridgeLog(level: .error))
        // Many calls from one address: a 429 from the default limiter would add its Retry-After to a call's setup.
        configuration.rateLimit = .init(burst: 1000, ratePerSecond: 1000)
        if let loss {
            let mediaPort = try Self.freeUDPPort()
            let link = LinkImpairment(loss: .uniform(loss / 100))
            let relay = try ImpairmentRelay(
                .init(
                    listen: TransportAddress(ip: .loopbackV4, port: 0),
                    upstream: TransportAddress(ip: .loopbackV4, port: UInt16(mediaPort)), up: link, down: link,
                    seed: seed))
            configuration.mediaPort = mediaPort
            configuration.advertise = "127.0.0.1:\(relay.listenAddress.port)"
            self.relay = relay
        } else {
            relay = nil
        }
        bridge = Bridge(configuration: configuration)
        do {
            port = try bridge.start()
        } catch {
            relay?.stop()
            throw error
        }
    }

    /// A UDP port free a moment ago (the bridge binds it right after; the relay must know it first).
    private static func freeUDPPort() throws -> Int {
        let socket = try UDPSocket(bindingTo: TransportAddress(ip: .loopbackV4, port: 0))
        defer { socket.close() }
        return Int(socket.localAddress.port)
    }

    var relayCounters: RelayCounters? { relay?.counters }

    func stop() {
        bridge.stop()
        relay?.stop()
    }
}
