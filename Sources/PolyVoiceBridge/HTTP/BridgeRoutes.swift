// PROTOCOL.md's routes on HTTPRouter: provision, connect, pull, renegotiate, ICE restart, hang up,
// plus /healthz and /metrics. Every error is a JSON `ErrorBody`.
import PolyCore
import PolySignaling

enum BridgeRoutes {
    static func router(_ core: BridgeCore) -> HTTPRouter {
        var router = HTTPRouter()
        router.add("GET", "/healthz") { _ in
            .json(["status": "ok", "activeCalls": "\(core.activeCalls)"])
        }
        router.add("GET", "/metrics") { _ in
            .text(core.metricsText(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        router.add("POST", "/api/v1/call") { provision(core, $0) }
        router.add("DELETE", "/api/v1/call/{id}") { request in
            await perCall(core, request) { entry in
                core.hangUp(entry.id, at: .now())
                return .json(["status": "ended"])
            }
        }
        router.add("POST", "/api/v1/call/{id}/sdp") { request in
            await perCall(core, request) { entry in
                let body: ConnectRequest
                switch decode(ConnectRequest.self, request.body, expected: #"{"sdp":…,"mid":…}"#) {
                case .success(let decoded): body = decoded
                case .failure(let response): return response
                }
                return await media(core, entry) { session async throws(BridgeMediaError) in
                    try await session.applyOffer(body.sdp, mid: body.mid)
                }
            }
        }
        router.add("POST", "/api/v1/call/{id}/sdp/ice-restart") { request in
            await perCall(core, request) { entry in
                let body: SDPMessage
                switch decode(SDPMessage.self, request.body, expected: #"{"sdp":…}"#) {
                case .success(let decoded): body = decoded
                case .failure(let response): return response
                }
                guard entry.media != nil else {
                    return .error(409, code: "not_connected", message: "connect before an ICE restart")
                }
                return await media(core, entry) { session async throws(BridgeMediaError) in
                    try await session.applyOffer(body.sdp, mid: nil)
                }
            }
        }
        router.add("POST", "/api/v1/call/{id}/sdp/pull") { request in
            await perCall(core, request) { entry in
                if case .failure(let response) = decode(EmptyMessage.self, request.body, expected: "{}") {
                    return response
                }
                guard let session = entry.media, session.stats.isConnected else {
                    return .error(409, code: "media_not_connected", message: "pull only after media is connected")
                }
                let response = await media(core, entry) { session async throws(BridgeMediaError) in
                    try await session.createPullOffer()
                }
                if response.status == 200 { _ = core.setPullPending(entry.id, true) }
                return response
            }
        }
        router.add("POST", "/api/v1/call/{id}/sdp/renegotiate") { request in
            await perCall(core, request) { entry in
                let body: SDPMessage
                switch decode(SDPMessage.self, request.body, expected: #"{"sdp":…}"#) {
                case .success(let decoded): body = decoded
                case .failure(let response): return response
                }
                guard let session = entry.media, entry.pullPending else {
                    return .error(409, code: "no_pull", message: "no pull offer awaits an answer")
                }
                do throws(BridgeMediaError) {
                    try await session.applyPullAnswer(body.sdp)
                } catch {
                    return mediaError(error)
                }
                _ = core.setPullPending(entry.id, false)
                return .json(["status": "ok"])
            }
        }
        return router
    }

    /// Wraps the router: rate limit first, then route; counts and logs error statuses.
    static func handler(_ core: BridgeCore) -> HTTPServer.Handler {
        let router = router(core)
        return { request in
            let response: HTTPResponse
            if request.path.hasPrefix("/api/"),
                let wait = core.admit(core.configuration.clientKey(request), at: .now())
            {
                let seconds = max(1, Int((wait.inSeconds).rounded(.up)))
                response = .error(
                    429, code: "rate_limited", message: "too many requests", headers: ["Retry-After": "\(seconds)"])
            } else {
                response = await router.handle(request)
            }
            if response.status >= 400 {
                core.countRejected(response.status)
                countRejection(core, response.errorCode ?? "status_\(response.status)")
                core.log.event(
                    .info, "http.rejected",
                    ["method": request.method, "path": request.path, "status": "\(response.status)"])
            } else {
                core.log.event(
                    .debug, "http.request", ["method": request.method, "path": request.path, "status": "200"])
            }
            return response
        }
    }

    /// Counts a refusal by reason for `/metrics` (`polyvoice_bridge_rejections_total`).
    static func countRejection(_ core: BridgeCore, _ reason: String) {
        core.state.withLock { $0.metrics.rejectedByReason[reason, default: 0] += 1 }
    }

    /// What the HTTP server refused itself (before any route): counted by status and reason.
    static func serverRejected(_ core: BridgeCore) -> @Sendable (ServerRejection) -> Void {
        { rejection in
            let status = RequestHeadPolicy.response(for: rejection, maxBodyBytes: 0).status
            if rejection != .webSocketSlowReader { core.countRejected(status) }
            countRejection(core, rejection.rawValue)
            core.log.event(.info, "http.rejected", ["reason": rejection.rawValue, "status": "\(status)"])
        }
    }

    /// A 400 naming what is wrong with a JSON body (field paths only, never values) and what was expected.
    static func badJSON(_ error: MessageError, expected: String) -> HTTPResponse {
        .error(400, code: "bad_json", message: "\(error); expected \(expected)")
    }

    enum Decoded<T> {
        case success(T)
        case failure(HTTPResponse)
    }

    /// Decodes a route's JSON body, or the 400 that says why it cannot be.
    static func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8], expected: String) -> Decoded<T> {
        do throws(MessageError) {
            return .success(try MessageCoding.decode(T.self, from: body))
        } catch {
            return .failure(badJSON(error, expected: expected))
        }
    }

    private static func provision(_ core: BridgeCore, _ request: HTTPRequest) -> HTTPResponse {
        let header = request.header("authorization") ?? ""
        let bearer = header.lowercased().hasPrefix("bearer ") ? String(header.dropFirst(7)) : nil
        guard let bearer, core.configuration.allowAnyToken || core.tokens.contains(bearer) else {
            return .error(401, code: "unauthorized", message: "missing or unknown web calling token")
        }
        let body: ProvisionRequest
        switch decode(ProvisionRequest.self, request.body, expected: #"{"mode":"voice-agent"}"#) {
        case .success(let decoded): body = decoded
        case .failure(let response): return response
        }
        guard core.configuration.allowedModes.contains(body.mode) else {
            return .error(403, code: "mode_not_allowed", message: "mode not allowed on this bridge")
        }
        switch core.provision(mode: body.mode, at: .now()) {
        case .provisioned(let response): return .json(response)
        case .atCapacity:
            return .error(
                503, code: "at_capacity", message: "the bridge has reached --max-calls",
                headers: ["Retry-After": "5"])
        }
    }

    /// Checks the call id (404) and `X-Call-Token` (401), then runs `body`.
    private static func perCall(
        _ core: BridgeCore, _ request: HTTPRequest, _ body: (CallEntry) async -> HTTPResponse
    ) async -> HTTPResponse {
        switch core.authorize(request.parameters["id"] ?? "", token: request.header("x-call-token")) {
        case .unknown: return .error(404, code: "unknown_call", message: "no such call")
        case .badToken: return .error(401, code: "bad_call_token", message: "per-call token rejected")
        case .found(let entry): return await body(entry)
        }
    }

    /// Runs an SDP operation on the call's media session and answers `{"sdp":…}`.
    private static func media(
        _ core: BridgeCore, _ entry: CallEntry,
        _ operation: (any BridgeMediaSession) async throws(BridgeMediaError) -> String
    ) async -> HTTPResponse {
        do throws(BridgeMediaError) {
            let session = try core.mediaSession(for: entry)
            return .json(SDPMessage(sdp: try await operation(session)))
        } catch {
            return mediaError(error)
        }
    }

    private static func mediaError(_ error: BridgeMediaError) -> HTTPResponse {
        switch error {
        case .invalidSDP: .error(400, code: "bad_sdp", message: error.description)
        case .wrongState: .error(409, code: "wrong_state", message: error.description)
        case .unavailable: .error(503, code: "media_unavailable", message: error.description)
        }
    }
}
