// Call setup (PolyCall.start → DTLS connected, `setupTime`) direct and through a real coturn over TURN/UDP,
// TURN/TCP and TURN/TLS, against the in-process reference bridge on 127.0.0.1, in one run: the median of
// `--calls` (default 10) calls each. The relayed calls are relay-only, so each uses exactly that transport.
// Issue #16's target: setup over TURN/TLS ≤ 150 ms on this machine.
import Foundation
import PolyVoice
import PolyVoiceBridge
import PolyVoiceTesting

let token = "relay-setup-bench-token-5e21"

/// One way a call reaches the bridge.
struct Path {
    var name: String
    /// The TURN URL the bridge hands out (nil: none, direct).
    var turnURL: String?
}

func setupTimes(path: Path, coturn: CoturnServer, calls: Int) async throws -> [Double] {
    var configuration = BridgeConfiguration(
        tokens: [token], agent: .echo(delayMilliseconds: 0), media: .transport(), log: BridgeLog(level: .error))
    configuration.turn = path.turnURL.map { BridgeTURNServers(urls: [$0], secret: coturn.secret) }
    // The calls come from one address faster than the default limiter admits (40 requests at once, 20 a second):
    // its 429 and Retry-After would add a second to some calls' setup, which is not what is measured here.
    configuration.rateLimit = .init(burst: 1000, ratePerSecond: 1000)
    let bridge = Bridge(configuration: configuration)
    let port = try bridge.start()
    defer { bridge.stop() }
    var times: [Double] = []
    for _ in 0..<calls {
        var options = VoiceOptions(input: .null, output: .null)
        options.iceTransportPolicy = path.turnURL == nil ? .all : .relay
        options.trustedCAFile = coturn.certificatePath
        let call = try PolyVoice.call(
            config: Configuration(apiKey: "bench-api-key", environment: .local(port: port), webrtcToken: token),
            options: options)
        try await call.start()
        let deadline = ContinuousClock.now + .seconds(10)
        while await call.setupTime == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        guard let setup = await call.setupTime else { throw BenchError("\(path.name): a call did not connect") }
        times.append(setup.inSeconds * 1000)
        await call.end()
    }
    return times
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

let arguments = CommandLine.arguments
let calls = arguments.firstIndex(of: "--calls").flatMap { Int(arguments[$0 + 1]) } ?? 10
do {
    let coturn = try CoturnServer(tls: true)
    let paths = [
        Path(name: "direct", turnURL: nil), Path(name: "turn_udp", turnURL: coturn.url),
        Path(name: "turn_tcp", turnURL: coturn.tcpURL), Path(name: "turn_tls", turnURL: coturn.tlsURL),
    ]
    var result: [String: Any] = ["calls_each": calls]
    print("RelaySetupBench: PolyCall.start → connected (ms), \(calls) calls each, bridge and coturn on 127.0.0.1")
    for path in paths {
        let times = try await setupTimes(path: path, coturn: coturn, calls: calls)
        print(
            String(
                format: "  %-9@ median %6.1f  min %6.1f  max %6.1f", path.name, median(times), times.min() ?? 0,
                times.max() ?? 0))
        result["\(path.name)_setup_ms_median"] = median(times)
        result["\(path.name)_setup_ms_max"] = times.max() ?? 0
    }
    let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
    print("RESULT_JSON " + String(decoding: json, as: UTF8.self))
} catch {
    FileHandle.standardError.write(Data("RelaySetupBench: \(error)\n".utf8))
    exit(1)
}
