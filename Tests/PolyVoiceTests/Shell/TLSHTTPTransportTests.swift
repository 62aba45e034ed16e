// TLSHTTPTransport (its plain http: path, the same exchange and parser as over TLS) against a scripted server:
// it frames the request itself, reads chunked answers, and a hostile or silent server ends in a bounded,
// clearly named error, never an unbounded read or a hang. A scripted proxy shows what an https: request asks
// the `https_proxy` for (CLITests' CallBridgeTLSTests go through a real tunnel).
import Foundation
import PolySignaling
import Testing

@testable import PolyVoice

/// One-connection TCP server on 127.0.0.1 (a blocking thread: test setup only): reads the request head, keeps
/// it, writes `answer`, then keeps the connection open for `hold` seconds before closing it.
final class ScriptedHTTPServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let received = NSLock()
    private var request = [UInt8]()

    init(answer: [UInt8], hold: TimeInterval = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && listen(fd, 4) == 0
                    && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw CocoaError(.fileWriteUnknown)
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            var head = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while head.firstRange(of: [13, 10, 13, 10]) == nil {  // the head (and whatever body came with it)
                let count = read(connection, &buffer, buffer.count)
                guard count > 0 else { break }
                head += buffer[0..<count]
            }
            received.withLock { request = head }
            var offset = 0
            while offset < answer.count {
                let sent = answer[offset...].withUnsafeBytes {
                    send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard sent > 0 else { break }
                offset += sent
            }
            Thread.sleep(forTimeInterval: hold)
            close(connection)
        }
    }

    deinit { close(listener) }

    var requestText: String { received.withLock { String(decoding: request, as: UTF8.self) } }
}

@Suite("TLSHTTPTransport against scripted servers")
struct TLSHTTPTransportTests {
    static func post(port: UInt16, timeout: Duration = .seconds(5)) -> HTTPClientRequest {
        HTTPClientRequest(
            method: "POST", url: URL(string: "http://127.0.0.1:\(port)/api/v1/call")!,
            headers: ["Authorization": "Bearer not-a-real-token"], body: Array(#"{"mode":"voice-agent"}"#.utf8),
            timeout: timeout)
    }

    /// A port nothing listens on: bound (so it was free), never listened on, closed.
    static func closedPort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    static func failure(_ request: HTTPClientRequest) async -> String {
        do {
            _ = try await TLSHTTPTransport(trustedCAFile: nil).perform(request)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test func chunkedAnswerAndTheRequestItFramed() async throws {
        let server = try ScriptedHTTPServer(
            answer: Array(
                "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nRetry-After: 3\r\n\r\n3\r\n{\"a\r\n3\r\n\":1\r\n1\r\n}\r\n0\r\n\r\n"
                    .utf8),
            hold: 2)
        let response = try await TLSHTTPTransport(trustedCAFile: nil).perform(Self.post(port: server.port))
        #expect(response.status == 201)
        #expect(response.headers["retry-after"] == "3")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"a":1}"#)
        let request = server.requestText
        #expect(request.hasPrefix("POST /api/v1/call HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"), "\(request)")
        #expect(request.contains("Content-Length: 22\r\n") && request.contains("Connection: close\r\n"))
    }

    @Test func anEndlessHeadIsCutOffAtItsLimit() async throws {
        let server = try ScriptedHTTPServer(
            answer: Array(("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 200_000)).utf8), hold: 2)
        let error = await Self.failure(Self.post(port: server.port))
        #expect(error == "Bridge unreachable: bad HTTP response: response head larger than 65536 bytes")
    }

    @Test func aHugeDeclaredBodyIsRefusedBeforeItArrives() async throws {
        let server = try ScriptedHTTPServer(
            answer: Array("HTTP/1.1 200 OK\r\nContent-Length: 10000000\r\n\r\n".utf8), hold: 2)
        let error = await Self.failure(Self.post(port: server.port))
        #expect(error == "Bridge unreachable: bad HTTP response: response body larger than 4194304 bytes")
    }

    @Test func aTruncatedAnswerIsAnError() async throws {
        let server = try ScriptedHTTPServer(answer: Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc".utf8))
        let error = await Self.failure(Self.post(port: server.port))
        #expect(error == "Bridge unreachable: bad HTTP response: connection closed before the response was complete")
    }

    @Test func aSilentServerTimesOut() async throws {
        let server = try ScriptedHTTPServer(answer: [], hold: 5)
        let began = Date()
        let error = await Self.failure(Self.post(port: server.port, timeout: .milliseconds(500)))
        #expect(error == "Bridge unreachable: request timed out")
        #expect(Date().timeIntervalSince(began) < 3)
    }

    static func failure(_ request: HTTPClientRequest, environment: [String: String]) async -> String {
        do {
            _ = try await TLSHTTPTransport(trustedCAFile: nil, loop: .shared, environment: environment).perform(request)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test func anHTTPSRequestAsksTheProxyForATunnelAndARefusalSaysSo() async throws {
        let proxy = try ScriptedHTTPServer(
            answer: Array("HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 4\r\n\r\nnope".utf8), hold: 2)
        var request = Self.post(port: 1)
        request.url = URL(string: "https://bridge.test:8443/api/v1/call")!
        let error = await Self.failure(
            request, environment: ["https_proxy": "http://user:pass@127.0.0.1:\(proxy.port)"])
        #expect(error == "Bridge unreachable: the proxy refused the tunnel (407)")
        // Only the tunnel's request reached the proxy (bridge.test was never looked up): not the token.
        #expect(
            proxy.requestText
                == "CONNECT bridge.test:8443 HTTP/1.1\r\nHost: bridge.test:8443\r\nProxy-Authorization: Basic dXNlcjpwYXNz\r\n\r\n",
            "\(proxy.requestText)")
    }

    @Test func aProxyThatClosesOrCannotBeReachedIsNamedInTheError() async throws {
        var request = Self.post(port: 1)
        request.url = URL(string: "https://127.0.0.1:8443/api/v1/call")!
        let closing = try ScriptedHTTPServer(answer: [])
        #expect(
            await Self.failure(request, environment: ["HTTPS_PROXY": "127.0.0.1:\(closing.port)"])
                == "Bridge unreachable: the proxy closed the connection before opening the tunnel")
        let unreachable = await Self.failure(
            request, environment: ["https_proxy": "http://127.0.0.1:\(Self.closedPort())"])
        #expect(unreachable.hasPrefix("Bridge unreachable: proxy connection failed: "), "\(unreachable)")
    }

    @Test func plainHTTPRequestsIgnoreTheHTTPSProxy() async throws {
        let server = try ScriptedHTTPServer(answer: Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))
        let response = try await TLSHTTPTransport(
            trustedCAFile: nil, loop: .shared, environment: ["https_proxy": "http://127.0.0.1:\(Self.closedPort())"]
        ).perform(Self.post(port: server.port))
        #expect(response.status == 204)
    }

    @Test func aClosedPortIsAConnectionFailureAndNoTokenIsShown() async throws {
        let port = Self.closedPort()
        let error = await Self.failure(Self.post(port: port))
        #expect(error.hasPrefix("Bridge unreachable: connection failed: "), "\(error)")
        #expect(!error.contains("not-a-real-token"))
    }
}
