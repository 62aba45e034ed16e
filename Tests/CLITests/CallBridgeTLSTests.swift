// `polyvoice call --ca-file` / `doctor --network --ca-file` against the reference bridge behind a TLS proxy
// whose certificate a test CA signed: with the CA the REST routes and the events socket go over verified TLS
// end to end; without it, or with a certificate for another address or name, the call fails (exit 4) with a
// clear TLS error, never falling back to an unverified connection.
import Foundation
import Testing

@Suite("polyvoice call to an HTTPS bridge with --ca-file", .serialized)
struct CallBridgeTLSTests {
    static let call = ["call", "--input", "null", "--output", "null", "--duration", "2", "--json"]
    static let environment = ["POLYVOICE_WEBRTC_TOKEN": BridgeProcess.token]

    /// The reference bridge behind a TLS proxy whose certificate the test CA signed for `subjectAltName`.
    struct HTTPSBridge {
        let certificates: TestCertificates
        let bridge: BridgeProcess
        let proxy: TLSProxyProcess

        init(name: String = "bridge", subjectAltName: String = "IP:127.0.0.1") throws {
            certificates = try TestCertificates()
            bridge = try BridgeProcess()
            proxy = try TLSProxyProcess(
                certificate: try certificates.serverCertificate(name, subjectAltName: subjectAltName),
                upstream: bridge.port)
        }

        var url: String { "https://127.0.0.1:\(proxy.port)/" }

        func stop() {
            proxy.stop()
            bridge.stop()
            certificates.remove()
        }
    }

    @Test func callOverHTTPSAndWSSTrustsTheCAFile() async throws {
        let site = try HTTPSBridge()
        defer { site.stop() }
        let result = try await runPolyvoice(
            Self.call + ["--bridge", site.url, "--ca-file", site.certificates.caFile],
            environment: Self.environment)
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains(#""type":"summary""#), "\(result.stdout)")
        // Everything went through the TLS proxy: provision, the offer, the events socket and the hang-up.
        let lines = site.proxy.requestLines
        #expect(lines.contains("POST /api/v1/call HTTP/1.1"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("POST /api/v1/call/") && $0.hasSuffix("/sdp HTTP/1.1") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("GET /api/v1/call/") && $0.contains("/events") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("DELETE /api/v1/call/") }, "\(lines)")
        #expect(!result.stdout.contains(BridgeProcess.token) && !result.stderr.contains(BridgeProcess.token))

        // POLYVOICE_CA_FILE does the same without the option.
        let fromEnvironment = try await runPolyvoice(
            Self.call + ["--bridge", site.url],
            environment: Self.environment.merging(["POLYVOICE_CA_FILE": site.certificates.caFile]) { $1 })
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stdout) \(fromEnvironment.stderr)")
    }

    @Test func withoutTheCAFileTheCallFailsWithATLSError() async throws {
        let site = try HTTPSBridge()
        defer { site.stop() }
        let result = try await runPolyvoice(
            Self.call + ["--bridge", site.url], environment: Self.environment)
        #expect(result.status == 4, "\(result.stdout) \(result.stderr)")
        // Only the system store is trusted: the certificate does not verify, and the error says so.
        let output = result.stdout + result.stderr
        #expect(output.contains("TLS failure") && output.contains("certificate"), "\(output)")
        #expect(site.proxy.requestLines.isEmpty, "a request got through: \(site.proxy.requestLines)")
        #expect(!result.stdout.contains(BridgeProcess.token) && !result.stderr.contains(BridgeProcess.token))
    }

    @Test func aCertificateForAnotherAddressOrNameFailsEvenWithTheCAFile() async throws {
        let site = try HTTPSBridge(name: "other", subjectAltName: "IP:127.0.0.2,DNS:bridge.test")
        defer { site.stop() }
        for url in [site.url, "https://localhost:\(site.proxy.port)/"] {
            let result = try await runPolyvoice(
                Self.call + ["--bridge", url, "--ca-file", site.certificates.caFile], environment: Self.environment)
            #expect(result.status == 4, "\(url): \(result.stdout) \(result.stderr)")
            let output = result.stdout + result.stderr
            #expect(output.contains("TLS failure: certificate verification failed"), "\(url): \(output)")
            #expect(output.contains("mismatch"), "\(url): \(output)")
        }
        #expect(site.proxy.requestLines.isEmpty, "a request got through: \(site.proxy.requestLines)")
    }

    @Test func doctorChecksAnHTTPSBridgeWithTheCAFile() async throws {
        let site = try HTTPSBridge()
        defer { site.stop() }
        let doctor = ["doctor", "--network", "--bridge", site.url, "--json"]
        let trusted = try await runPolyvoice(
            doctor + ["--ca-file", site.certificates.caFile], environment: Self.environment)
        #expect(trusted.stdout.contains("provisioned a call"), "\(trusted.stdout) \(trusted.stderr)")
        let untrusted = try await runPolyvoice(doctor, environment: Self.environment)
        #expect(untrusted.status == 1, "\(untrusted.stdout)")
        #expect(
            untrusted.stdout.contains("TLS failure") && untrusted.stdout.contains("certificate"), "\(untrusted.stdout)")
    }

    @Test func theRESTRequestsTunnelThroughTheHTTPSProxyTheEnvironmentNames() async throws {
        let site = try HTTPSBridge()
        let proxy = try ConnectProxyProcess(credentials: "pv user:s3cr:et")
        defer {
            proxy.stop()
            site.stop()
        }
        let arguments = Self.call + ["--bridge", site.url, "--ca-file", site.certificates.caFile]
        let proxyURL = "http://pv%20user:s3cr%3Aet@127.0.0.1:\(proxy.port)"
        let result = try await runPolyvoice(
            arguments, environment: Self.environment.merging(["https_proxy": proxyURL]) { $1 })
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        // Provision, the offer and the hang-up each opened a tunnel (with the credentials) to the bridge's
        // TLS endpoint, and TLS was verified end to end through it: the bridge side saw them over TLS.
        let tunnels = proxy.requestLines
        #expect(tunnels.count >= 3, "\(tunnels)")
        #expect(tunnels.allSatisfy { $0 == "CONNECT 127.0.0.1:\(site.proxy.port) HTTP/1.1 -> 200" }, "\(tunnels)")
        #expect(site.proxy.requestLines.contains("POST /api/v1/call HTTP/1.1"), "\(site.proxy.requestLines)")
        #expect(site.proxy.requestLines.contains { $0.hasPrefix("DELETE /api/v1/call/") })
        #expect(!(result.stdout + result.stderr).contains("s3cr"))

        // no_proxy (or NO_PROXY) sends the requests straight to the bridge.
        let direct = try await runPolyvoice(
            arguments,
            environment: Self.environment.merging(["HTTPS_PROXY": proxyURL, "NO_PROXY": "localhost, 127.0.0.1"]) { $1 })
        #expect(direct.status == 0, "\(direct.stdout) \(direct.stderr)")
        #expect(proxy.requestLines.count == tunnels.count, "\(proxy.requestLines)")

        // Wrong credentials: the proxy's refusal is the error, with its status and without the credentials.
        let refused = try await runPolyvoice(
            arguments,
            environment: Self.environment.merging(["https_proxy": "http://pv:wrong-pass@127.0.0.1:\(proxy.port)"]) {
                $1
            })
        #expect(refused.status == 4, "\(refused.stdout) \(refused.stderr)")
        let output = refused.stdout + refused.stderr
        #expect(output.contains("the proxy refused the tunnel (407)"), "\(output)")
        #expect(!output.contains("wrong-pass"))
    }

    @Test func aProxySettingThatCannotBeUsedIsAClearErrorNotADirectConnection() async throws {
        let site = try HTTPSBridge()
        defer { site.stop() }
        let result = try await runPolyvoice(
            Self.call + ["--bridge", site.url, "--ca-file", site.certificates.caFile],
            environment: Self.environment.merging(["https_proxy": "socks5://user:secret@127.0.0.1:1"]) { $1 })
        #expect(result.status == 4, "\(result.stdout) \(result.stderr)")
        let output = result.stdout + result.stderr
        #expect(output.contains("unusable proxy setting: only http:// proxies are supported"), "\(output)")
        #expect(!output.contains("secret"))
        #expect(site.proxy.requestLines.isEmpty, "a request went direct: \(site.proxy.requestLines)")
    }

    @Test func caFileMustBeAReadableFile() async throws {
        let result = try await runPolyvoice(
            Self.call + ["--bridge", "https://127.0.0.1:1/", "--ca-file", "/nonexistent/ca.pem"],
            environment: Self.environment)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--ca-file"))
    }
}
