// `polyvoice doctor --network`: from where it runs, can a call reach the bridge, and which paths work?
// The bridge's REST API (a provision, then its DELETE), each STUN server it hands out (server-reflexive
// address) and each TURN server (an allocation with the call's credentials), plus `--ice-server`s.
import Dispatch
import FoundationEssentials
import PolyNet
import PolySignaling
import PolyVoice
import Synchronization

enum NetworkChecks {
    static let group = "Network"

    /// `caFile`: trusted besides the system store for the bridge's HTTPS and `turns:` (as `call --ca-file`).
    static func all(bridge: URL, token: String, extra: [ICEServerConfiguration], caFile: String?) -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let began = Date()
        let provisioned = blocking { () async -> Result<ProvisionedCall, SignalingError> in
            // The transport a call uses (the CA file matters only to an https: bridge).
            let client = BridgeClient(
                configuration: .init(baseURL: bridge, webCallingToken: token),
                transport: TLSHTTPTransport(trustedCAFile: caFile))
            do throws(SignalingError) {
                let call = try await client.provision()
                await client.hangUp()
                return .success(call)
            } catch {
                return .failure(error)
            }
        }
        var servers = extra.map { ICEServer(urls: $0.urls, username: $0.username, credential: $0.credential) }
        switch provisioned {
        case .success(let call):
            checks.append(
                .pass(
                    group, "bridge \(bridge.host ?? "")",
                    String(
                        cFormat: "provisioned a call in %.0f ms; it hands out %ld STUN/TURN entr",
                        Date().timeIntervalSince(began) * 1000, call.iceServers.count)
                        + (call.iceServers.count == 1 ? "y" : "ies")))
            servers = call.iceServers + servers
        case .failure(let error):
            checks.append(
                .problem(
                    group, "bridge \(bridge.host ?? "")", required: true, "\(error)",
                    fix:
                        "check the URL and the web calling token, and that HTTPS (TCP 443 or the bridge's port) is open"
                ))
        }
        if servers.isEmpty {
            checks.append(
                .problem(
                    group, "STUN/TURN", required: false, "no STUN or TURN server to try",
                    fix: "calls need direct UDP to the bridge; behind a firewall give --ice-server turn:HOST:PORT"))
        }
        for server in servers {
            for url in server.urls {
                checks.append(check(url, username: server.username, credential: server.credential, caFile: caFile))
            }
        }
        return checks
    }

    static func check(_ text: String, username: String?, credential: String?, caFile: String?) -> DoctorCheck {
        guard let url = ICEServerURL(text) else {
            return .problem(
                group, text, required: false, "malformed URL", fix: "use stun:HOST[:PORT] or turn:HOST[:PORT]")
        }
        let name = "\(url.scheme.rawValue) \(url.host):\(url.port)\(url.transport.map { "?transport=\($0)" } ?? "")"
        guard let address = resolve(url) else {
            return .problem(group, name, required: false, "the name does not resolve", fix: "check DNS from here")
        }
        let transport = url.transport ?? (url.scheme == .turns ? "tcp" : "udp")
        switch url.scheme {
        case .stun:
            let began = Date()
            guard let mapped = try? NetworkProbe.stunBinding(address) else {
                return .problem(
                    group, name, required: false, "no answer in 3 s (UDP blocked?)",
                    fix: "allow UDP to \(address), or rely on a TURN server")
            }
            return .pass(
                group, name,
                "server-reflexive address \(mapped) "
                    + String(cFormat: "(%.0f ms)", Date().timeIntervalSince(began) * 1000))
        case .turn, .turns:
            guard transport == "udp" || transport == "tcp" else {
                return .problem(
                    group, name, required: false, "transport \(transport) is not supported",
                    fix: "use ?transport=udp or ?transport=tcp")
            }
            guard let username, let credential else {
                return .problem(
                    group, name, required: false, "no credentials",
                    fix: "set POLYVOICE_TURN_USERNAME and POLYVOICE_TURN_CREDENTIAL or --turn-credential-file")
            }
            let began = Date()
            let configuration = TURNClientConfiguration(
                server: address, serverName: "\(url.host):\(url.port)", transport: transport == "udp" ? .udp : .stream,
                username: username, password: credential, randomSeed: UInt64.random(in: 0...UInt64.max))
            func relayed(_ address: TransportAddress) -> DoctorCheck {
                .pass(
                    group, name,
                    "relay \(address) "
                        + String(
                            cFormat: "(%.0f ms): calls work even where direct UDP is blocked",
                            Date().timeIntervalSince(began) * 1000))
            }
            guard transport == "tcp" else {
                switch try? NetworkProbe.turnAllocation(configuration) {
                case .success(let allocation): return relayed(allocation.relayed)
                case .failure(let error):
                    return .problem(group, name, required: false, error.description, fix: fix(for: error, address))
                case nil:
                    return .problem(group, name, required: false, "no UDP socket", fix: "check the local network")
                }
            }
            let tls = url.scheme == .turns ? (hostName: url.host, caFile: caFile) : nil
            switch StreamTURNProbe.allocate(configuration, tls: tls) {
            case .success(let address): return relayed(address)
            case .failure(let failure):
                let fix =
                    tls == nil
                    ? "allow TCP to \(address)"
                    : "allow TCP to \(address); a certificate the system does not trust needs --ca-file"
                return .problem(group, name, required: false, failure.reason, fix: fix)
            }
        case .stuns:
            return .problem(group, name, required: false, "stuns: is not supported", fix: "use stun: or turns:")
        }
    }

    static func fix(for error: TURNError, _ address: TransportAddress) -> String {
        switch error {
        case .unauthorized, .wrongCredentials:
            "the TURN credentials are wrong or expired: check them or the bridge's TURN secret"
        case .timeout: "allow UDP to \(address) (or use TURN over TCP/TLS)"
        default: "ask the TURN server's operator"
        }
    }

    static func resolve(_ url: ICEServerURL) -> TransportAddress? {
        if let literal = url.literalAddress { return literal }
        return try? HostLookup.lookUp(host: url.host, port: url.port).get().first
    }

    /// Runs `work` on the cooperative pool and waits for it (doctor is a synchronous command).
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let value = await work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
