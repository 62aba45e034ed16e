// A real coturn (Debian's `turnserver`) as a child process on 127.0.0.1 for tests: a free UDP port, a random
// TURN REST-API secret, loopback peers allowed, state in a scratch folder removed on deinit.
import Foundation
import PolyNet

/// One `turnserver` process with TURN REST-API credentials (`use-auth-secret`).
public final class CoturnServer: @unchecked Sendable {
    public let port: UInt16
    /// The `static-auth-secret` (random per server).
    public let secret = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    public let realm = "polyvoice.test"
    private let process = Process()
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "pv-coturn-\(UUID().uuidString)")

    public struct NotInstalled: Error, CustomStringConvertible {
        public let description = "/usr/bin/turnserver is missing: install coturn (scripts/setup.sh does)"
    }

    /// Starts `/usr/bin/turnserver` (scripts/setup.sh installs coturn); throws if it cannot start.
    public init() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/turnserver") else { throw NotInstalled() }
        port = try Self.freeUDPPort()
        let relayBase = Int.random(in: 40_000...59_000)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/turnserver")
        process.arguments = [
            "-n", "--no-cli", "--listening-ip=127.0.0.1", "--listening-port=\(port)", "--relay-ip=127.0.0.1",
            "--min-port=\(relayBase)", "--max-port=\(relayBase + 200)", "--use-auth-secret",
            "--static-auth-secret=\(secret)", "--realm=\(realm)", "--no-tls", "--no-dtls", "--allow-loopback-peers",
            "--pidfile=\(directory.path)/pid", "--db=\(directory.path)/turndb", "--log-file=\(directory.path)/log",
            "--simple-log", "--no-stdout-log",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        // SIGKILL: the child inherits the test runner's signal mask, in which SIGTERM may be blocked.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    public var address: TransportAddress { TransportAddress(ip: .loopbackV4, port: port) }
    public var url: String { "turn:127.0.0.1:\(port)" }

    /// Credentials valid for an hour for `name`.
    public func credentials(name: String) -> TURNRESTCredentials {
        TURNRESTCredentials(secret: secret, name: name, expiry: Int(Date().timeIntervalSince1970) + 3600)
    }

    private static func freeUDPPort() throws -> UInt16 {
        let probe = try UDPSocket(bindingTo: TransportAddress("127.0.0.1:0")!)
        defer { probe.close() }
        return probe.localAddress.port
    }
}
