// Test certificates from a test CA (openssl) and Tests/TLSProxy/tls_proxy.py in front of a bridge process:
// the reference bridge speaks HTTP only, so this is how a call reaches it over HTTPS and WSS. And
// Tests/TLSProxy/connect_proxy.py, the HTTP proxy a call's `https_proxy` can name.
import Foundation

/// A test CA and server certificates it signs, in a temporary directory (removed by `remove()`).
struct TestCertificates {
    let directory: URL
    var caFile: String { directory.appendingPathComponent("ca.pem").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pv-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.openssl(
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=polyvoice test CA", "-keyout", path("ca.key"), "-out", caFile)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// `NAME.pem` and `NAME.key`: a server certificate signed by the CA for `subjectAltName` (e.g. "IP:127.0.0.1").
    func serverCertificate(_ name: String, subjectAltName: String) throws -> (cert: String, key: String) {
        let extensions = path("\(name).ext")
        try "subjectAltName=\(subjectAltName)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n".write(
            toFile: extensions, atomically: true, encoding: .utf8)
        try Self.openssl(
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj",
            "/CN=polyvoice test bridge", "-keyout", path("\(name).key"), "-out", path("\(name).csr"))
        try Self.openssl(
            "x509", "-req", "-in", path("\(name).csr"), "-CA", caFile, "-CAkey", path("ca.key"), "-CAcreateserial",
            "-days", "1", "-extfile", extensions, "-out", path("\(name).pem"))
        return (path("\(name).pem"), path("\(name).key"))
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    private static func openssl(_ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TLSProxyError(reason: "openssl \(arguments[0]) failed") }
    }
}

struct TLSProxyError: Error { let reason: String }

/// A script of Tests/TLSProxy run with python3, listening on 127.0.0.1 at the port it prints ("listening PORT").
final class ScriptServerProcess {
    let process = Process()
    let port: Int

    init(script: String, arguments: [String]) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-u", root.appendingPathComponent("TLSProxy/\(script)").path] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = firstLine(of: out)
        guard let range = text.range(of: "listening "), let port = Int(text[range.upperBound...].prefix { $0.isNumber })
        else {
            process.terminate()
            throw TLSProxyError(reason: "\(script) did not start: \(text)")
        }
        self.port = port
    }

    /// SIGKILL: the child inherits the test runner's signal mask, in which SIGTERM may be blocked.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// `tls_proxy.py` terminating TLS with a certificate and forwarding to 127.0.0.1:`upstream`.
final class TLSProxyProcess {
    let server: ScriptServerProcess
    var port: Int { server.port }
    /// The first line of every connection that got through TLS (request lines, never headers).
    let logFile: String

    init(certificate: (cert: String, key: String), upstream: Int) throws {
        logFile = certificate.cert + ".requests"
        server = try ScriptServerProcess(
            script: "tls_proxy.py", arguments: [certificate.cert, certificate.key, "\(upstream)", logFile])
    }

    /// The request lines seen so far.
    var requestLines: [String] { readLines(logFile) }

    func stop() { server.stop() }
}

/// `connect_proxy.py`: an HTTP CONNECT proxy (as `https_proxy` names one) to loopback ports only, asking for
/// `credentials` ("user:password") if given.
final class ConnectProxyProcess {
    let server: ScriptServerProcess
    var port: Int { server.port }
    let logFile = FileManager.default.temporaryDirectory.appendingPathComponent("pv-connect-\(UUID().uuidString)")
        .path

    init(credentials: String? = nil) throws {
        server = try ScriptServerProcess(
            script: "connect_proxy.py", arguments: [logFile] + (credentials.map { [$0] } ?? []))
    }

    /// Each request line with the proxy's answer ("CONNECT 127.0.0.1:8443 HTTP/1.1 -> 200").
    var requestLines: [String] { readLines(logFile) }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(atPath: logFile)
    }
}

private func readLines(_ file: String) -> [String] {
    ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
}
