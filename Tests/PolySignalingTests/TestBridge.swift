import Foundation
import Synchronization

@testable import PolySignaling

/// A tiny bridge on HTTPServer for tests: scripted provision statuses, SDP routes, an events socket.
final class TestBridge: Sendable {
    static let webToken = "web-token-abcdefghijklmnop"
    static let callToken = "call-token-qrstuvwxyz012345"

    /// Shared with the handlers.
    final class State: Sendable {
        /// Statuses (with headers) answered by provision before it succeeds.
        let provisionScript: Mutex<[(Int, [String: String])]>
        let provisionBody = Mutex<String?>(nil)
        let log = Mutex<[String]>([])
        let sockets = Mutex<[WebSocketConnection]>([])
        let authenticated = Mutex<Set<UInt64>>([])
        let closes = Mutex<[WebSocketClose]>([])
        let remotes = Mutex<[String]>([])
        init(_ script: [(Int, [String: String])]) { provisionScript = Mutex(script) }
    }

    let server: HTTPServer
    let state: State

    var baseURL: URL { URL(string: "http://127.0.0.1:\(server.port)/")! }

    init(
        provisionScript: [(Int, [String: String])] = [], maxBodyBytes: Int = 64 * 1024,
        tls: (certificate: String, key: String)? = nil
    ) throws {
        let state = State(provisionScript)
        self.state = state
        var router = HTTPRouter()
        router.add("POST", "/api/v1/call") { request in
            state.log.withLock { $0.append("provision") }
            state.remotes.withLock { $0.append(request.remoteAddress) }
            guard request.header("authorization") == "Bearer \(Self.webToken)" else {
                return .error(401, code: "unauthorized")
            }
            guard (try? MessageCoding.decode(ProvisionRequest.self, from: request.body))?.mode == "voice-agent" else {
                return .error(403, code: "forbidden")
            }
            if let (status, headers) = state.provisionScript.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                return .error(status, code: "scripted", headers: headers)
            }
            if let custom = state.provisionBody.withLock({ $0 }) {
                return HTTPResponse(status: 200, body: Array(custom.utf8))
            }
            return .json(
                ProvisionResponse(
                    callId: "call-1",
                    creds: CallCredentials(
                        connectUrl: "/api/v1/call/call-1/sdp", token: Self.callToken,
                        extra: CallExtras(
                            eventsUrl: "/api/v1/call/call-1/events", pullUrl: "/api/v1/call/call-1/sdp/pull",
                            renegotiateUrl: "/api/v1/call/call-1/sdp/renegotiate"))))
        }
        router.add("POST", "/api/v1/call/{id}/sdp") { request in
            guard request.header("x-call-token") == Self.callToken else { return .error(401, code: "bad_token") }
            guard let offer = try? MessageCoding.decode(ConnectRequest.self, from: request.body) else {
                return .error(400, code: "bad_json")
            }
            return .json(SDPMessage(sdp: "answer-to-" + offer.sdp + "-" + (request.parameters["id"] ?? "")))
        }
        router.add("DELETE", "/api/v1/call/{id}") { request in
            state.log.withLock {
                $0.append("delete \(request.parameters["id"] ?? "") \(request.header("x-call-token") ?? "")")
            }
            return HTTPResponse(status: 204)
        }
        let webSocket = WebSocketHandlers(
            accepts: { $0.hasSuffix("/events") },
            onOpen: { connection in state.sockets.withLock { $0.append(connection) } },
            onText: { connection, text in
                if state.authenticated.withLock({ $0.contains(connection.id) }) { return }
                if SecretComparison.constantTimeEquals(AuthFrame.parse(text)?.token ?? "", Self.callToken) {
                    state.authenticated.withLock { _ = $0.insert(connection.id) }
                    connection.send(text: #"{"event":"hello-unknown"}"#)
                } else {
                    connection.close(code: WebSocketClose.policyViolation, reason: "auth first")
                }
            },
            onClose: { _, close in state.closes.withLock { $0.append(close) } })
        server = try HTTPServer(
            configuration: .init(
                maxBodyBytes: maxBodyBytes, tlsCertificateFile: tls?.certificate, tlsPrivateKeyFile: tls?.key),
            webSocket: webSocket, handler: router.handler)
    }

    var lastSocket: WebSocketConnection? { state.sockets.withLock { $0.last } }

    deinit { server.stop() }
}
