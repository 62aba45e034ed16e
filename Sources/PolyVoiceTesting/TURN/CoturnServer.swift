// A real coturn (Debian's `turnserver`) as a child process on 127.0.0.1 for tests: a free port (UDP and TCP),
// optionally TLS on a second port with a fresh self-signed EC certificate for IP 127.0.0.1, a random TURN
// REST-API secret, loopback peers allowed, state in a scratch folder removed on deinit.
import FoundationEssentials
import Glibc
import PolyCore
import PolyNet

/// One `turnserver` process with TURN REST-API credentials (`use-auth-secret`).
public final class CoturnServer: @unchecked Sendable {
    /// UDP and TCP.
    public let port: UInt16
    /// TLS over TCP, when started with `tls: true`.
    public let tlsPort: UInt16?
    /// The self-signed certificate (PEM) the TLS port serves: trust it as a CA file to verify the server.
    public var certificatePath: String { directory.appendingPathComponent("cert.pem").path }
    /// The `static-auth-secret` (random per server).
    public let secret = (0..<16).map { _ in String(cFormat: "%02x", UInt8.random(in: 0...255)) }.joined()
    public let realm = "polyvoice.test"
    private let process: ChildProcess
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "pv-coturn-\(UUID().uuidString)")

    public struct NotInstalled: Error, CustomStringConvertible {
        public let description = "/usr/bin/turnserver is missing: install coturn (scripts/setup.sh does)"
    }

    /// coturn or openssl did not do what the test needs.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `/usr/bin/turnserver` (scripts/setup.sh installs coturn) and waits until its TCP (and TLS)
    /// port accepts connections. A coturn that exits or does not listen (another socket took one of its ports
    /// meanwhile) is replaced by one on fresh ports, up to three times; then this throws with coturn's last words.
    public init(tls: Bool = false) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/turnserver") else { throw NotInstalled() }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if tls { try Self.makeCertificate(in: directory, ip: "127.0.0.1") }
        var lastWords = "no log"
        for _ in 0..<3 {
            let port = try Self.freeUDPPort()
            let tlsPort = tls ? try Self.freeUDPPort() : nil
            let process = try ChildProcess(
                "/usr/bin/turnserver",
                Self.arguments(port: port, tlsPort: tlsPort, secret: secret, realm: realm, in: directory),
                standardOutput: .discard, standardError: .discard)
            if Self.waitUntilListening(on: [port] + (tlsPort.map { [$0] } ?? []), process: process) {
                self.port = port
                self.tlsPort = tlsPort
                self.process = process
                return
            }
            process.send(SIGKILL)
            process.waitForExit()
            lastWords = Self.lastLogLine(in: directory)?.replacing(secret, with: "[secret]") ?? lastWords
        }
        try? FileManager.default.removeItem(at: directory)
        throw Failure(description: "coturn is not listening (three tries): \(lastWords)")
    }

    private static func arguments(
        port: UInt16, tlsPort: UInt16?, secret: String, realm: String, in directory: URL
    ) -> [String] {
        // The relay ports stay clear of the listening ones.
        let listening = [port] + (tlsPort.map { [$0] } ?? [])
        var relayBase = Int.random(in: 40_000...59_000)
        while listening.contains(where: { (relayBase...relayBase + 200).contains(Int($0)) }) {
            relayBase = Int.random(in: 40_000...59_000)
        }
        var arguments = [
            "-n", "--no-cli", "--listening-ip=127.0.0.1", "--listening-port=\(port)", "--relay-ip=127.0.0.1",
            "--min-port=\(relayBase)", "--max-port=\(relayBase + 200)", "--use-auth-secret",
            "--static-auth-secret=\(secret)", "--realm=\(realm)", "--no-dtls", "--allow-loopback-peers",
            "--pidfile=\(directory.path)/pid", "--db=\(directory.path)/turndb", "--log-file=\(directory.path)/log",
            "--simple-log", "--no-stdout-log",
        ]
        if let tlsPort {
            arguments += [
                "--cert=\(directory.appendingPathComponent("cert.pem").path)",
                "--pkey=\(directory.appendingPathComponent("key.pem").path)",
                "--tls-listening-port=\(tlsPort)",
            ]
        } else {
            arguments.append("--no-tls")
        }
        return arguments
    }

    /// Whether every one of `ports` accepts a connection within 5 s, while `process` keeps running.
    private static func waitUntilListening(on ports: [UInt16], process: ChildProcess) -> Bool {
        ports.allSatisfy { port in
            waitForTCP(port: port, timeout: 5) { process.waitForExit(within: 0) == nil }
        }
    }

    /// The last line coturn logged (why it stopped, usually), if any.
    private static func lastLogLine(in directory: URL) -> String? {
        let logs = (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.filter {
            $0.hasPrefix("log")
        }
        guard let log = logs?.sorted().last,
            let bytes = try? FileBytes.read(directory.appendingPathComponent(log).path)
        else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").last.map(String.init)
    }

    deinit {
        process.send(SIGKILL)  // nothing of coturn's state is kept
        process.waitForExit()
        try? FileManager.default.removeItem(at: directory)
    }

    public var address: TransportAddress { TransportAddress(ip: .loopbackV4, port: port) }
    public var url: String { "turn:127.0.0.1:\(port)" }
    public var tcpURL: String { "turn:127.0.0.1:\(port)?transport=tcp" }
    /// `turns:` on the TLS port (nil unless started with `tls: true`).
    public var tlsURL: String? { tlsPort.map { "turns:127.0.0.1:\($0)?transport=tcp" } }

    /// Credentials valid for an hour for `name`.
    public func credentials(name: String) -> TURNRESTCredentials {
        TURNRESTCredentials(secret: secret, name: name, expiry: Int(Date().timeIntervalSince1970) + 3600)
    }

    /// `openssl req`: `key.pem`, a P-256 key, and `cert.pem`, a self-signed certificate whose subjectAltName is
    /// IP `ip`, in `directory`.
    public static func makeCertificate(in directory: URL, ip: String) throws {
        let arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=polyvoice test TURN", "-addext", "subjectAltName=IP:\(ip)",
            "-keyout", directory.appendingPathComponent("key.pem").path,
            "-out", directory.appendingPathComponent("cert.pem").path,
        ]
        let openssl = try ChildProcess("/usr/bin/openssl", arguments, standardOutput: .discard, standardError: .discard)
        guard openssl.waitForExit() == 0 else { throw Failure(description: "openssl req failed") }
    }

    /// Blocking connect probes (test setup, not on an event loop) until 127.0.0.1:`port` accepts.
    private static func waitForTCP(port: UInt16, timeout: TimeInterval, while running: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, running() {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(descriptor)
            if connected { return true }
            DetachedThread.sleep(seconds: 0.02)
        }
        return false
    }

    private static func freeUDPPort() throws -> UInt16 {
        let probe = try UDPSocket(bindingTo: TransportAddress("127.0.0.1:0")!)
        defer { probe.close() }
        return probe.localAddress.port
    }
}
