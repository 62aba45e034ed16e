// REST side of PROTOCOL.md: provision, connect, pull/renegotiate (serialised), ICE restart, hang up.
import FoundationEssentials
import PolyCore

/// The client of a voice bridge's REST routes, for one call at a time.
///
/// Provision with the web calling token (`Authorization: Bearer`); every later route sends the
/// per-call token as `X-Call-Token`, never in a URL. 429 and 5xx answers are retried per `RetryPolicy`.
public actor BridgeClient {
    /// Where the bridge is and how to talk to it.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// The bridge base URL; every relative route is resolved against it.
        public var baseURL: URL
        /// The web calling token (redacted in descriptions).
        public var webCallingToken: String
        /// Timeout of one HTTP request (PROTOCOL: 15 s).
        public var requestTimeout: Duration
        public var retry: RetryPolicy

        public init(
            baseURL: URL, webCallingToken: String, requestTimeout: Duration = .seconds(15),
            retry: RetryPolicy = RetryPolicy()
        ) {
            self.baseURL = baseURL
            self.webCallingToken = webCallingToken
            self.requestTimeout = requestTimeout
            self.retry = retry
        }

        public var description: String {
            "BridgeClient.Configuration(baseURL: \(baseURL.absoluteString), token: \(Redaction.token(webCallingToken)))"
        }
    }

    public nonisolated let configuration: Configuration
    private let transport: any HTTPTransport
    private let environment: ClientEnvironment
    /// The call provisioned last (nil before `provision`).
    public private(set) var call: ProvisionedCall?
    private let pullGate = AsyncGate()

    /// `transport` performs the requests (PolyVoice's `TLSHTTPTransport` in a call).
    public init(
        configuration: Configuration, transport: any HTTPTransport, environment: ClientEnvironment = .live
    ) {
        self.configuration = configuration
        self.transport = transport
        self.environment = environment
    }

    /// Uses an already provisioned call (e.g. handed over from another client).
    public func adopt(_ call: ProvisionedCall) { self.call = call }

    /// `POST /api/v1/call` with `{"mode": mode}`; remembers and returns the provisioned call.
    @discardableResult
    public func provision(mode: String = "voice-agent") async throws(SignalingError) -> ProvisionedCall {
        let url = try BridgeURLs.resolve("api/v1/call", against: configuration.baseURL)
        let data = try await send(
            route: "provision", method: "POST", url: url, body: MessageCoding.encode(ProvisionRequest(mode: mode)),
            authorization: .bearer(configuration.webCallingToken))
        let response = try decode(ProvisionResponse.self, from: data, route: "provision")
        let provisioned = try ProvisionedCall(response: response, base: configuration.baseURL)
        call = provisioned
        return provisioned
    }

    /// `POST {connectUrl}` with the complete offer; returns the bridge's answer SDP.
    public func connect(offerSDP: String, mid: String = "0") async throws(SignalingError) -> String {
        let call = try requireCall()
        let data = try await send(
            route: "connect", method: "POST", url: call.connectURL,
            body: MessageCoding.encode(ConnectRequest(sdp: offerSDP, mid: mid)), authorization: .callToken(call.token))
        return try decode(SDPMessage.self, from: data, route: "connect").sdp
    }

    /// `POST {pullUrl}` with `{}`; returns the bridge's offer. Pulls are serialised: this waits until the
    /// previous pull finished, i.e. until its `renegotiate` returned (or the pull itself failed).
    public func pull() async throws(SignalingError) -> String {
        let call = try requireCall()
        guard let url = call.pullURL else { throw .extensionUnavailable("pullUrl") }
        await pullGate.enter()
        do {
            let data = try await send(
                route: "pull", method: "POST", url: url, body: MessageCoding.encode(EmptyMessage()),
                authorization: .callToken(call.token))
            return try decode(SDPMessage.self, from: data, route: "pull").sdp
        } catch {
            await pullGate.leave()
            throw error
        }
    }

    /// `POST {renegotiateUrl}` with the answer to the last pull's offer; ends that pull.
    public func renegotiate(answerSDP: String) async throws(SignalingError) {
        let result: Result<[UInt8], SignalingError>
        do throws(SignalingError) {
            let call = try requireCall()
            guard let url = call.renegotiateURL else { throw .extensionUnavailable("renegotiateUrl") }
            result = .success(
                try await send(
                    route: "renegotiate", method: "POST", url: url,
                    body: MessageCoding.encode(SDPMessage(sdp: answerSDP)), authorization: .callToken(call.token)))
        } catch {
            result = .failure(error)
        }
        await pullGate.leaveIfHeld()
        _ = try result.get()
    }

    /// Extension `iceRestartUrl`: sends an offer with new ICE credentials; returns the answer.
    public func iceRestart(offerSDP: String) async throws(SignalingError) -> String {
        let call = try requireCall()
        guard let url = call.iceRestartURL else { throw .extensionUnavailable("iceRestartUrl") }
        let data = try await send(
            route: "ice restart", method: "POST", url: url, body: MessageCoding.encode(SDPMessage(sdp: offerSDP)),
            authorization: .callToken(call.token))
        return try decode(SDPMessage.self, from: data, route: "ice restart").sdp
    }

    /// `DELETE /api/v1/call/{callId}`, best effort: one attempt, errors ignored. Forgets the call.
    public func hangUp() async {
        guard let call else { return }
        self.call = nil
        let id = call.callId.percentEncodedComponent()
        guard let url = try? BridgeURLs.resolve("api/v1/call/\(id)", against: configuration.baseURL) else { return }
        _ = try? await send(
            route: "hang up", method: "DELETE", url: url, body: nil, authorization: .callToken(call.token),
            policy: RetryPolicy.none)
    }

    // MARK: - Requests

    private enum Authorization {
        case bearer(String)
        case callToken(String)
    }

    private func requireCall() throws(SignalingError) -> ProvisionedCall {
        guard let call else { throw .notProvisioned }
        return call
    }

    private func request(method: String, url: URL, body: [UInt8]?, authorization: Authorization) -> HTTPClientRequest {
        var headers: HTTPHeaders = ["Accept": "application/json"]
        if body != nil { headers["Content-Type"] = "application/json" }
        switch authorization {
        case .bearer(let token): headers["Authorization"] = "Bearer \(token)"
        case .callToken(let token): headers["X-Call-Token"] = token
        }
        return HTTPClientRequest(
            method: method, url: url, headers: headers, body: body, timeout: configuration.requestTimeout)
    }

    /// Sends with retries; returns the body of the first 2xx answer.
    private func send(
        route: String, method: String, url: URL, body: [UInt8]?, authorization: Authorization,
        policy: RetryPolicy? = nil
    ) async throws(SignalingError) -> [UInt8] {
        let policy = policy ?? configuration.retry
        let request = request(method: method, url: url, body: body, authorization: authorization)
        var attempt = 1
        while true {
            let response = try await transport.perform(request)
            let status = response.status
            if response.isSuccess { return response.body }
            guard RetryPolicy.isRetryable(status: status), attempt < policy.maxAttempts else {
                throw SignalingError.forStatus(status, route: route, perCall: route != "provision")
            }
            let delay =
                status == 429
                ? policy.delayFor429(
                    retryAfter: response.headers["Retry-After"], now: environment.now(),
                    attempt: attempt, unitRandom: environment.unitRandom())
                : policy.backoff(afterAttempt: attempt, unitRandom: environment.unitRandom())
            do {
                try await environment.sleep(delay)
            } catch {
                throw SignalingError.transport("cancelled")
            }
            attempt += 1
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, from data: [UInt8], route: String) throws(SignalingError) -> T {
        do {
            return try MessageCoding.decode(T.self, from: data)
        } catch {
            throw .malformedResponse(route: route, error)
        }
    }
}
