// The shell's stream to a TCP/TLS TURN server against a real coturn: a STUN Binding request over TCP and over
// TLS (certificate trusted through the extra CA file) is answered; a trusted certificate for the wrong name,
// or one that is not trusted at all, fails the stream with the verification error, not a silent fallback.
import Foundation
import PolyCore
import PolyNet
import PolyVoiceTesting
import Synchronization
import Testing

@testable import PolySession

@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/turnserver")))
struct RelayStreamConnectionTests {
    final class Outcome: Sendable {
        let bytes = Mutex<[UInt8]>([])
        let closed = Mutex<String?>(nil)
    }

    final class Holder: @unchecked Sendable { var connection: RelayStreamConnection? }

    /// Opens a stream, writes one Binding request and waits up to 5 s for a whole response or a close.
    static func bind(
        to address: TransportAddress, relayProtocol: TURNRelayProtocol, hostName: String, caFile: String?
    ) throws -> (response: STUNMessage?, closed: String?) {
        let loop = try EventLoop(name: "relay-stream-test")
        defer { loop.shutdown() }
        let context =
            relayProtocol == .tls ? Result { () throws(TLSError) in try TLSClientContext(extraCAFile: caFile) } : nil
        let stream = RelayStream(
            id: 0, server: address, serverName: "\(address)", relayProtocol: relayProtocol, hostName: hostName,
            trustedCAFile: caFile)
        var generator = SystemRandomNumberGenerator()
        let request = STUNMessage(messageClass: .request, transactionID: .random(using: &generator)).encoded()
        let outcome = Outcome()
        let holder = Holder()
        loop.execute {
            holder.connection = RelayStreamConnection(
                stream, tlsContext: context, loop: loop, onBytes: { bytes in outcome.bytes.withLock { $0 += bytes } },
                onClosed: { reason in outcome.closed.withLock { $0 = reason } })
            holder.connection?.write(request)  // before the connect (and the handshake) completed
        }
        let end = Date().addingTimeInterval(5)
        var response: STUNMessage?
        while Date() < end, response == nil, outcome.closed.withLock({ $0 }) == nil {
            Thread.sleep(forTimeInterval: 0.01)
            response = try? STUNMessage(decoding: outcome.bytes.withLock { $0 })
        }
        loop.execute { holder.connection?.close() }
        return (response, outcome.closed.withLock { $0 })
    }

    @Test func aBindingRequestIsAnsweredOverTCP() throws {
        let coturn = try CoturnServer()
        let result = try Self.bind(to: coturn.address, relayProtocol: .tcp, hostName: "127.0.0.1", caFile: nil)
        #expect(result.closed == nil)
        #expect(result.response?.messageClass == .successResponse)
    }

    @Test func aBindingRequestIsAnsweredOverVerifiedTLS() throws {
        let coturn = try CoturnServer(tls: true)
        let address = TransportAddress(ip: .loopbackV4, port: try #require(coturn.tlsPort))
        let result = try Self.bind(
            to: address, relayProtocol: .tls, hostName: "127.0.0.1", caFile: coturn.certificatePath)
        #expect(result.closed == nil)
        #expect(result.response?.messageClass == .successResponse)
    }

    @Test func aTrustedCertificateForAnotherNameFailsVerification() throws {
        let coturn = try CoturnServer(tls: true)
        let address = TransportAddress(ip: .loopbackV4, port: try #require(coturn.tlsPort))
        let result = try Self.bind(
            to: address, relayProtocol: .tls, hostName: "turn.example.org", caFile: coturn.certificatePath)
        #expect(result.response == nil)
        let reason = try #require(result.closed)
        #expect(reason.hasPrefix("certificate verification failed"))
        #expect(reason.contains("mismatch"))
    }

    @Test func anUntrustedCertificateFailsVerification() throws {
        let coturn = try CoturnServer(tls: true)
        let address = TransportAddress(ip: .loopbackV4, port: try #require(coturn.tlsPort))
        let result = try Self.bind(to: address, relayProtocol: .tls, hostName: "127.0.0.1", caFile: nil)
        #expect(result.response == nil)
        #expect(result.closed?.hasPrefix("certificate verification failed") == true)
    }
}
