// TURN entries of the provisioning response (`iceServers` with `username` and `credential`) → the TURN
// clients' configurations. A TURN server is a fallback path, so one that cannot be used is a warning naming
// it (never its credential), not a failed call: the direct path may well work.
import PolyCore
import PolyNet
import PolySignaling

enum TURNServerResolver {
    /// One configuration per usable `turn:` URL over UDP (the default transport), resolved off the event loop.
    /// `turns:` and `?transport=tcp` need a stream to the server, which the media engine does not drive yet.
    static func resolve(_ servers: [ICEServer], logger: Logger) async -> [TURNClientConfiguration] {
        var configurations: [TURNClientConfiguration] = []
        for server in servers {
            for text in server.urls where text.lowercased().hasPrefix("turn") {
                guard let url = ICEServerURL(text), url.scheme == .turn || url.scheme == .turns else {
                    logger.warn(
                        "The TURN server URL \"\(text)\" is malformed (expected turn:host[:port][?transport=udp|tcp])")
                    continue
                }
                let name = "\(url.host):\(url.port)"
                guard url.scheme == .turn, (url.transport ?? "udp") == "udp" else {
                    logger.debug(
                        "TURN server \(name) over \(url.scheme == .turns ? "TLS" : "TCP") is not supported yet")
                    continue
                }
                guard let username = server.username, let password = server.credential else {
                    logger.warn("TURN server \(name) has no username or credential in iceServers: not used")
                    continue
                }
                let addresses: [TransportAddress]
                if let literal = url.literalAddress {
                    addresses = [literal]
                } else {
                    switch await HostLookup.lookUpOffThread(host: url.host, port: url.port) {
                    case .success(let found): addresses = found
                    case .failure(let reason):
                        logger.warn("TURN server \(name) could not be resolved: \(reason)")
                        continue
                    }
                }
                for address in addresses {
                    configurations.append(
                        TURNClientConfiguration(
                            server: address, serverName: name, transport: .udp, username: username,
                            password: password, randomSeed: 0))
                }
            }
        }
        return configurations
    }
}
