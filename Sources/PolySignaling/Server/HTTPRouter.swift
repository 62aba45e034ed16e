// Routing by method and path pattern (`/api/v1/call/{id}/sdp`) for HTTPServer handlers.

/// A table of routes; unmatched paths answer 404, a matched path with another method 405.
public struct HTTPRouter: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    private struct Route: Sendable {
        var method: String
        var segments: [Substring]
        var handler: Handler
    }
    private var routes: [Route] = []

    public init() {}

    /// Adds a route; `{name}` segments match any one segment and appear in `request.parameters`.
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        routes.append(Route(method: method.uppercased(), segments: Self.split(pattern), handler: handler))
    }

    /// Dispatches `request` to the first matching route.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let segments = Self.split(request.path)
        var pathMatched = false
        for route in routes {
            guard let parameters = Self.match(route.segments, segments) else { continue }
            pathMatched = true
            guard route.method == request.method else { continue }
            var routed = request
            routed.parameters = parameters
            return await route.handler(routed)
        }
        return pathMatched
            ? .error(405, code: "method_not_allowed") : .error(404, code: "not_found", message: "no such route")
    }

    /// The router as a server handler.
    public var handler: Handler { { request in await self.handle(request) } }

    private static func split(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    private static func match(_ pattern: [Substring], _ path: [Substring]) -> [String: String]? {
        guard pattern.count == path.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(pattern, path) {
            if expected.hasPrefix("{") && expected.hasSuffix("}") {
                parameters[String(expected.dropFirst().dropLast())] = String(actual)
            } else if expected != actual {
                return nil
            }
        }
        return parameters
    }
}
