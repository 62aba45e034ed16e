// The bridge's HTTP request path without sockets: the server's head policy, then the bridge's routes,
// and the events socket's first-frame check. For fuzzing (fuzz/Sources/FuzzHTTPRequest) and tests.
import PolyCore
import PolySignaling

/// Answers requests as the bridge's HTTP server would, minus libwebsockets' own parsing: the request
/// head decision (`RequestHeadPolicy`), then rate limit, routes and body decoding. Media is unavailable.
public struct BridgeRequestPath: Sendable {
    let core: BridgeCore
    private let handler: HTTPServer.Handler

    public init(configuration: BridgeConfiguration) throws(BridgeError) {
        guard !configuration.tokens.isEmpty || configuration.allowAnyToken else { throw .noTokens }
        let template: AgentTemplate
        do { template = try AgentTemplate(configuration.agent) } catch { throw .agent(error) }
        core = BridgeCore(configuration: configuration, template: template)
        handler = BridgeRoutes.handler(core)
    }

    /// The response to a request whose head lws parsed into `request` (body included).
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        let limit = core.configuration.maxBodyBytes
        switch RequestHeadPolicy.decide(headers: request.headers, maxBodyBytes: limit) {
        case .reject(let rejection):
            return RequestHeadPolicy.response(for: rejection, maxBodyBytes: limit)
        case .dispatch:
            var request = request
            request.body = []
            return await handler(request)
        case .readBody(let length):
            guard request.body.count <= limit else {
                return RequestHeadPolicy.response(for: .bodyTooLarge, maxBodyBytes: limit)
            }
            var request = request
            request.body = Array(request.body.prefix(length))
            return await handler(request)
        }
    }

    /// Whether `firstFrame` on an events socket at `path` authenticates a live call (as the bridge decides).
    public func eventsAuthenticates(path: String, firstFrame: String) -> Bool {
        guard let id = BridgeCore.callID(inEventsPath: path), let frame = AuthFrame.parse(firstFrame),
            case .found = core.authorize(id, token: frame.token)
        else { return false }
        return true
    }

    /// Calls currently provisioned.
    public var activeCalls: Int { core.activeCalls }
}
