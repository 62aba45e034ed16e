// TURN entries of the provisioning response (`iceServers` with `username` and `credential`) → the TURN
// clients' configurations. A TURN server is a fallback path, so one that cannot be used is a warning naming
// it (never its credential), not a failed call: the direct path may well work.
import PolyCore
import PolyNet
import PolySession
import PolySignaling

enum TURNServerResolver {
    /// One relay per usable URL and address, resolved off the event loop: `turn:` over UDP (the default) or
    /// TCP (`?transport=tcp`), `turns:` over TLS (default port 5349), its certificate checked against the
    /// URL's host with the system trust store plus `trustedCAFile` (or `POLYVOICE_CA_FILE` when that is nil).
    static func resolve(_ servers: [ICEServer], trustedCAFile: String? = nil, logger: Logger) async
        -> [TURNRelayServer]
    {
        let caFile = BridgeTrust.caFile(trustedCAFile)
        var configurations: [TURNRelayServer] = []
        for server in servers {
            for text in server.urls where text.lowercased().hasPrefix("turn") {
                guard let url = ICEServerURL(text), url.scheme == .turn || url.scheme == .turns else {
                    logger.warn(
                        "The TURN server URL \"\(text)\" is malformed (expected turn:host[:port][?transport=udp|tcp])")
                    continue
                }
                let name = "\(url.host):\(url.port)"
                let relayProtocol: TURNRelayProtocol
                switch (url.scheme, url.transport ?? (url.scheme == .turns ? "tcp" : "udp")) {
                case (.turn, "udp"): relayProtocol = .udp
                case (.turn, "tcp"): relayProtocol = .tcp
                case (.turns, "tcp"): relayProtocol = .tls
                case (_, let transport):
                    logger.warn("TURN server \(name): transport \(transport) of \"\(text)\" is not supported: not used")
                    continue
                }
                guard let username = server.username, let password = server.credential else {
                    logger.warn("TURN server \(name) has no username or credential in iceServers: not used")
                    continue
                }
                let addresses: [TransportAddress]
                switch await HostLookup.addresses(of: url) {
                case .success(let found): addresses = found
                case .failure(let reason):
                    logger.warn("TURN server \(name) could not be resolved: \(reason)")
                    continue
                }
                for address in addresses {
                    let client = TURNClientConfiguration(
                        server: address, serverName: name, transport: relayProtocol == .udp ? .udp : .stream,
                        username: username, password: password, randomSeed: 0)
                    configurations.append(
                        TURNRelayServer(
                            client: client, relayProtocol: relayProtocol, hostName: url.host, trustedCAFile: caFile))
                }
            }
        }
        return configurations
    }
}
