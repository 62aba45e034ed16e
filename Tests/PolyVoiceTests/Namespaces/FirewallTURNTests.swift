// Calls from behind a firewall: the bridge and a coturn in one network namespace, the client in another whose
// nftables output chain drops what offices and hotels drop (UDP to the bridge but the TURN port; all UDP; all
// but the bridge's HTTP port and TURNS). The call must connect through a relay the bridge hands out (TURN over
// UDP, TCP or TLS), and with refused TURN credentials fail clearly.
// Needs root, network namespaces and nft (scripts/setup.sh installs nftables; CI runs as root).
import Foundation
import PolyAudio
import PolyVoiceTesting
import Testing

@Suite("Calls through TURN from behind a firewall (namespaces, nftables, coturn)", .serialized, .timeLimit(.minutes(2)))
struct FirewallTURNTests {
    static let turnPort = 3478
    static let turnsPort = 5349

    /// What the client's firewall lets through to the bridge's address.
    enum Firewall {
        /// UDP only to the TURN port.
        case udpOnlyToTURN
        /// No UDP at all.
        case noUDP
        /// TCP to the bridge's HTTP port and to TURNS, nothing else.
        case onlyHTTPAndTURNS
    }

    struct Event: Decodable {
        struct Pair: Decodable {
            var localCandidateType: String
            var relayProtocol: String?
        }
        var type: String
        var state: String?
        var result: String?
        var exitCode: Int32?
        var error: String?
        var candidatePair: Pair?
    }

    /// The namespaces, a coturn and a bridge handing it out (signing with `bridgeSecret`), and the firewall.
    struct Site {
        let namespaces: NamespacePair
        let directory: URL
        let tokenFile: URL
        let coturn: LineProcess
        let bridge: LineProcess
        let bridgeURL: String
        /// The coturn certificate (SAN IP of the bridge's address), for `--turn-ca-file`.
        var certificate: URL { directory.appendingPathComponent("cert.pem") }

        func stop() {
            bridge.stop()
            coturn.stop()
            namespaces.destroy()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// `everyTransport`: the bridge hands out coturn over UDP, TCP and TLS (else over UDP only).
    static func site(bridgeSecret: String? = nil, firewall: Firewall = .udpOnlyToTURN, everyTransport: Bool = false)
        async throws -> Site
    {
        let namespaces = try NamespacePair.create()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pv-fw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let secret = UUID().uuidString
        let secretFile = directory.appendingPathComponent("turn-secret")
        try "\(bridgeSecret ?? secret)\n".write(to: secretFile, atomically: true, encoding: .utf8)
        let tokenFile = directory.appendingPathComponent("token")
        try "firewall-test-token-93af\n".write(to: tokenFile, atomically: true, encoding: .utf8)
        let ip = namespaces.bridgeIP
        try CoturnServer.makeCertificate(in: directory, ip: ip)
        let coturn = try LineProcess(
            NamespacePair.inNamespace(
                namespaces.bridgeNamespace,
                [
                    "/usr/bin/turnserver", "-n", "--no-cli", "--listening-ip=\(ip)", "--listening-port=\(turnPort)",
                    "--relay-ip=\(ip)", "--min-port=49152", "--max-port=49400", "--use-auth-secret",
                    "--static-auth-secret=\(secret)", "--realm=polyvoice.test", "--no-dtls",
                    "--cert=\(directory.path)/cert.pem", "--pkey=\(directory.path)/key.pem",
                    "--tls-listening-port=\(turnsPort)",
                    "--pidfile=\(directory.path)/turn.pid", "--db=\(directory.path)/turndb",
                    "--log-file=\(directory.path)/turn.log", "--simple-log", "--no-stdout-log",
                ]))
        let binary = NamespacePair.polyvoiceBinary().path
        let bridge = try LineProcess(
            NamespacePair.inNamespace(
                namespaces.bridgeNamespace,
                [
                    binary, "bridge", "--host", ip, "--port", "0", "--agent", "echo", "--token-file", tokenFile.path,
                    "--turn-secret-file", secretFile.path,
                ]
                    + (everyTransport
                    ? [
                        "turn:\(ip):\(turnPort)", "turn:\(ip):\(turnPort)?transport=tcp",
                        "turns:\(ip):\(turnsPort)?transport=tcp",
                    ] : ["turn:\(ip):\(turnPort)"]).flatMap { ["--turn", $0] }))
        let site = Site(
            namespaces: namespaces, directory: directory, tokenFile: tokenFile, coturn: coturn, bridge: bridge,
            bridgeURL: "")
        guard let listening = await bridge.waitForLine(timeout: .seconds(20), { $0.contains("listening on http://") }),
            let url = bridge.lines[listening].split(separator: " ").first(where: { $0.hasPrefix("http://") })
        else {
            site.stop()
            throw NamespacePair.SetupError(description: "the bridge did not start in its namespace")
        }
        guard let port = url.split(separator: ":").last.flatMap({ Int($0.filter(\.isNumber)) }) else {
            site.stop()
            throw NamespacePair.SetupError(description: "no port in \(url)")
        }
        try install(firewall, bridgePort: port, in: namespaces, directory: directory)
        return Site(
            namespaces: namespaces, directory: directory, tokenFile: tokenFile, coturn: coturn, bridge: bridge,
            bridgeURL: String(url))
    }

    /// The client's firewall, an nftables output chain in its namespace (one rule per line).
    static func install(_ firewall: Firewall, bridgePort: Int, in namespaces: NamespacePair, directory: URL) throws {
        let bridge = namespaces.bridgeIP
        let rules: [String]
        switch firewall {
        case .udpOnlyToTURN: rules = ["ip daddr \(bridge) udp dport != \(turnPort) drop"]
        case .noUDP: rules = ["ip daddr \(bridge) meta l4proto udp drop"]
        case .onlyHTTPAndTURNS:
            rules = [
                "ip daddr \(bridge) meta l4proto udp drop",
                "ip daddr \(bridge) tcp dport != { \(bridgePort), \(turnsPort) } drop",
            ]
        }
        let file = directory.appendingPathComponent("firewall.nft")
        try """
        table inet pvfirewall {
            chain out {
                type filter hook output priority 0; policy accept;
        \(rules.map { "        " + $0 }.joined(separator: "\n"))
            }
        }

        """.write(to: file, atomically: true, encoding: .utf8)
        try nft(["-f", file.path], in: namespaces)
    }

    /// Runs nft in the client's namespace.
    static func nft(_ arguments: [String], in namespaces: NamespacePair) throws {
        let nft = Process()
        nft.executableURL = URL(fileURLWithPath: NamespacePair.ip)
        nft.arguments = ["netns", "exec", namespaces.clientNamespace, "/usr/sbin/nft"] + arguments
        try nft.run()
        nft.waitUntilExit()
        guard nft.terminationStatus == 0 else {
            let command = arguments.joined(separator: " ")
            throw NamespacePair.SetupError(
                description: "nft \(command) failed (\(nft.terminationStatus)): install nftables")
        }
    }

    static func startCall(_ site: Site, input: URL, output: URL, duration: Int = 8) throws -> LineProcess {
        try LineProcess(
            NamespacePair.inNamespace(
                site.namespaces.clientNamespace,
                [
                    NamespacePair.polyvoiceBinary().path, "call", "--bridge", site.bridgeURL, "--token-file",
                    site.tokenFile.path, "--input", input.path, "--output", output.path, "--duration", "\(duration)",
                    "--json", "--turn-ca-file", site.certificate.path,
                ]))
    }

    /// The call's summary event, once it has ended.
    static func summary(of client: LineProcess, timeout: Duration = .seconds(45)) async -> Event? {
        let summary = await client.waitForLine(timeout: timeout) { $0.contains(#""type":"summary""#) }
        _ = await client.waitForExit(timeout: .seconds(10))
        return summary.flatMap { try? JSONDecoder().decode(Event.self, from: Data(client.lines[$0].utf8)) }
    }

    static func call(_ site: Site, input: URL, output: URL) async throws -> (Event?, LineProcess) {
        let client = try startCall(site, input: input, output: output)
        return (await summary(of: client), client)
    }

    static func isState(_ state: String) -> (String) -> Bool {
        { line in
            (try? JSONDecoder().decode(Event.self, from: Data(line.utf8))).map {
                $0.type == "state" && $0.state == state
            } ?? false
        }
    }

    /// Drops everything from the client to the bridge's address (an outage), or stops dropping it.
    static func setOutage(_ on: Bool, in site: Site) throws {
        guard on else { return try nft(["delete", "table", "inet", "pvoutage"], in: site.namespaces) }
        let file = site.directory.appendingPathComponent("outage.nft")
        try """
        table inet pvoutage {
            chain out {
                type filter hook output priority -1; policy accept;
                ip daddr \(site.namespaces.bridgeIP) drop
            }
        }

        """.write(to: file, atomically: true, encoding: .utf8)
        try nft(["-f", file.path], in: site.namespaces)
    }

    /// The bridge hands out coturn over UDP, TCP and TLS; the firewall decides which relay works. With UDP to the
    /// TURN port open every relay works and TURN/UDP, the most preferred, is chosen.
    @Test(
        "the firewall leaves some relays: the call takes the best of them",
        arguments: [(Firewall.udpOnlyToTURN, "udp"), (Firewall.noUDP, "tcp"), (Firewall.onlyHTTPAndTURNS, "tls")])
    func connectsThroughTheRelayTheFirewallLeaves(firewall: Firewall, relayProtocol: String) async throws {
        let site = try await Self.site(firewall: firewall, everyTransport: true)
        defer { site.stop() }
        let speech = try SpeechFixtures().speech(.male)
        let received = site.directory.appendingPathComponent("received.wav")
        let (summary, client) = try await Self.call(site, input: speech, output: received)
        let result = try #require(summary, "no summary: \(client.lines.suffix(3))")
        #expect(result.exitCode == 0, "\(result.error ?? "")")
        #expect(result.candidatePair?.localCandidateType == "relay")
        #expect(result.candidatePair?.relayProtocol == relayProtocol)
        let score = try QualityScorer().score(reference: speech, degraded: received, maxDelay: .seconds(3))
        print(
            String(
                format: "firewall TURN/%@ echo: PESQ-WB %.2f, STOI %.2f", relayProtocol, score.pesqWideband, score.stoi)
        )
        #expect(score.pesqWideband > 2.0)
    }

    @Test("refused TURN credentials with direct UDP blocked: exit 4 naming the TURN server")
    func refusedCredentialsFailNamingTheServer() async throws {
        let site = try await Self.site(bridgeSecret: "a-secret-coturn-does-not-share")
        defer { site.stop() }
        let silence = site.directory.appendingPathComponent("silence.wav")
        try WAVFile(sampleRate: 48_000, layout: .mono, samples: .int16([Int16](repeating: 0, count: 48_000)))
            .write(to: silence)
        let (summary, client) = try await Self.call(
            site, input: silence, output: site.directory.appendingPathComponent("out.wav"))
        let result = try #require(summary, "no summary: \(client.lines.suffix(3))")
        #expect(result.exitCode == 4)
        let server = "\(site.namespaces.bridgeIP):\(Self.turnPort)"
        #expect(
            result.error?.contains("TURN server \(server) rejected the credentials (401)") == true,
            "\(result.error ?? "")")
    }

    /// Scenario 6: a TURN/TCP call (no UDP gets out) loses the network for 5 s, then its address changes. Both
    /// times it goes reconnecting → connected, over the relay; speech sent after both is echoed and scored.
    @Test("a TURN/TCP call through a 5 s outage and an address change: back to connected, on the relay")
    func relayCallSurvivesAnOutageAndAnAddressChange() async throws {
        let site = try await Self.site(firewall: .noUDP, everyTransport: true)
        defer { site.stop() }
        // Silence until `speechFrom`, when both recoveries are over, then speech (its echo is scored).
        let speechFrom = 20
        let speech = try WAVFile.readPipelineSamples(from: try SpeechFixtures().speech(.male))
        let samples = [Int16](repeating: 0, count: speechFrom * 48_000) + speech
        let input = site.directory.appendingPathComponent("input.wav")
        try WAVFile(sampleRate: 48_000, layout: .mono, samples: .int16(samples)).write(to: input)
        let received = site.directory.appendingPathComponent("received.wav")
        let client = try Self.startCall(
            site, input: input, output: received, duration: speechFrom + speech.count / 48_000 + 2)
        defer { client.stop() }
        _ = try #require(
            await client.waitForLine(timeout: .seconds(20), Self.isState("connected")), "the call never connected")
        let connectedAt = ContinuousClock.now
        try await Task.sleep(for: .seconds(2))

        let beforeOutage = client.lines.count
        try Self.setOutage(true, in: site)
        try await Task.sleep(for: .seconds(5))
        try Self.setOutage(false, in: site)
        let lost = try #require(
            await client.waitForLine(from: beforeOutage, timeout: .seconds(3), Self.isState("reconnecting")),
            "no reconnecting state during the outage")
        _ = try #require(
            await client.waitForLine(from: lost, timeout: .seconds(10), Self.isState("connected")),
            "the call did not come back after the outage")
        let outageRecovery = ContinuousClock.now - connectedAt - .seconds(7)

        let beforeMove = client.lines.count
        let movedAt = ContinuousClock.now
        try site.namespaces.moveClient()
        let moved = try #require(
            await client.waitForLine(from: beforeMove, timeout: .seconds(8), Self.isState("reconnecting")),
            "no reconnecting state after the address change")
        _ = try #require(
            await client.waitForLine(from: moved, timeout: .seconds(15), Self.isState("connected")),
            "the call did not come back after the address change")
        let moveRecovery = ContinuousClock.now - movedAt
        #expect(ContinuousClock.now - connectedAt < .seconds(speechFrom - 1), "recovered after the speech began")

        let result = try #require(await Self.summary(of: client), "no summary: \(client.lines.suffix(3))")
        #expect(result.exitCode == 0, "\(result.error ?? "")")
        #expect(result.candidatePair?.localCandidateType == "relay")
        #expect(result.candidatePair?.relayProtocol == "tcp")
        // Score what was echoed from a second before the speech on, against the same part of what was sent.
        let start = (speechFrom - 1) * 48_000
        let heard = try WAVFile.readPipelineSamples(from: received)
        try #require(heard.count > start, "only \(heard.count) samples were played")
        let reference = site.directory.appendingPathComponent("reference-tail.wav")
        let degraded = site.directory.appendingPathComponent("received-tail.wav")
        try WAVFile(sampleRate: 48_000, layout: .mono, samples: .int16(Array(samples[start...]))).write(to: reference)
        try WAVFile(sampleRate: 48_000, layout: .mono, samples: .int16(Array(heard[start...]))).write(to: degraded)
        let score = try QualityScorer().score(reference: reference, degraded: degraded, maxDelay: .seconds(3))
        print(
            "TURN/TCP outage + address change: connected again \(outageRecovery) after the outage,",
            "\(moveRecovery) after the move; echo after both PESQ-WB \(score.pesqWideband), STOI \(score.stoi)")
        #expect(score.pesqWideband > 2.0)
    }
}
