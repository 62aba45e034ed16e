import Foundation
import PolyVoiceTesting
import Testing

@testable import PolySignaling

/// wss:// against HTTPServer with a self-signed certificate made by the openssl command line tool.
@Suite struct SecureEventsSocketTests {
    /// A fresh self-signed EC certificate for 127.0.0.1 and localhost (or `subjectAltName`), valid one day.
    static func makeCertificate(subjectAltName: String = "IP:127.0.0.1,DNS:localhost") throws -> (
        certificate: String, key: String
    ) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pv-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
            "-out", certificate, "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=\(subjectAltName)",
        ]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        return (certificate, key)
    }

    /// Removes the directory `makeCertificate` made.
    static func remove(_ tls: (certificate: String, key: String)) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: tls.certificate).deletingLastPathComponent())
    }

    @Test func wssWithTrustedCertificateDeliversEvents() async throws {
        let tls = try Self.makeCertificate()
        defer { Self.remove(tls) }
        let bridge = try TestBridge(tls: tls)
        let url = URL(string: "https://127.0.0.1:\(bridge.server.port)/api/v1/call/call-1/events")!
        let socket = try EventsSocket(
            configuration: .init(url: url, token: TestBridge.callToken, trustedCAFile: tls.certificate))
        let collector = EventsSocketRecorder(socket)
        #expect(await eventually { bridge.state.authenticated.withLock { $0.count } == 1 })
        try #require(bridge.lastSocket).send(text: BridgeEvent.bargeIn("barge-in").frameText)
        #expect(await eventually { collector.events == [.bargeIn("barge-in")] })
        socket.close()
        #expect(await eventually { collector.close?.code == 1000 })
    }

    @Test func wssWithUntrustedCertificateFails() async throws {
        let tls = try Self.makeCertificate()
        defer { Self.remove(tls) }
        let bridge = try TestBridge(tls: tls)
        let url = URL(string: "wss://127.0.0.1:\(bridge.server.port)/api/v1/call/call-1/events")!
        let socket = try EventsSocket(configuration: .init(url: url, token: TestBridge.callToken))
        let collector = EventsSocketRecorder(socket)
        #expect(await eventually { collector.close != nil })
        #expect(collector.close?.code == 1006)
        #expect(!collector.all.contains(.open))
        #expect(bridge.state.sockets.withLock { $0.isEmpty })
    }

    /// A trusted CA file does not make a certificate for another address acceptable (the call's CA file
    /// reaches the events socket too, so this is what stops a wrong server there).
    @Test func wssWithTrustedCertificateForAnotherAddressFails() async throws {
        let tls = try Self.makeCertificate(subjectAltName: "IP:127.0.0.2,DNS:bridge.test")
        defer { Self.remove(tls) }
        let bridge = try TestBridge(tls: tls)
        let url = URL(string: "wss://127.0.0.1:\(bridge.server.port)/api/v1/call/call-1/events")!
        let socket = try EventsSocket(
            configuration: .init(url: url, token: TestBridge.callToken, trustedCAFile: tls.certificate))
        let collector = EventsSocketRecorder(socket)
        #expect(await eventually { collector.close != nil })
        #expect(collector.close?.code == 1006)
        #expect(!collector.all.contains(.open))
        #expect(bridge.state.sockets.withLock { $0.isEmpty })
    }
}
