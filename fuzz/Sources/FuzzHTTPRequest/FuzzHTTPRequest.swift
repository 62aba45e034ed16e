// Fuzzes the bridge's HTTP request path as far as it runs without sockets: the input is an HTTP/1.1
// request as text (request line, header lines, blank line, body) split the way libwebsockets hands it to
// HTTPServer (method, path, query, lower-cased headers, body); then the server's head policy, the rate
// limit, the routes and their body decoding (BridgeRequestPath). `$ID` and `$TOKEN` in the input stand
// for a call provisioned before each run, so the per-call routes are reached past their token check.
// Invariants: never trap; every error is a PROTOCOL.md error body with a code; no answer carries the
// web calling token; a refused head is never read further.
import Foundation
import PolyCore
import PolySignaling
import PolyVoiceBridge

let webToken = "fuzz-web-token-0123456789"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var configuration = BridgeConfiguration(tokens: [webToken], maxCalls: 4, maxBodyBytes: 2048)
    configuration.rateLimit = .init(burst: 3, ratePerSecond: 1, maxClients: 4)
    configuration.log = BridgeLog(write: { _ in })
    guard let path = try? BridgeRequestPath(configuration: configuration) else { preconditionFailure("no bridge") }
    let call = run {
        await path.respond(
            to: HTTPRequest(
                method: "POST", path: "/api/v1/call",
                headers: ["authorization": "Bearer \(webToken)", "content-length": "15"],
                body: Array(#"{"mode":"echo"}"#.utf8), remoteAddress: "setup"))
    }
    guard let provisioned = try? MessageCoding.decode(ProvisionResponse.self, from: call.body),
        let callToken = provisioned.creds.token
    else { preconditionFailure("setup provision failed: \(call.status)") }

    // Several requests per input (separated by a NUL byte), from a few client addresses.
    for (index, part) in bytes.split(separator: 0, omittingEmptySubsequences: false).prefix(8).enumerated() {
        guard let request = parse(Array(part), id: provisioned.callId, token: callToken) else { continue }
        var readdressed = request
        readdressed.remoteAddress = "10.0.0.\(index % 3)"
        let addressed = readdressed
        let response = run { await path.respond(to: addressed) }
        check(response, request: addressed)
        let text = String(decoding: response.body, as: UTF8.self)
        precondition(!text.contains(webToken), "a response carries the web calling token")
        // The events socket's first frame: the body as the frame, the path as the socket's.
        _ = path.eventsAuthenticates(path: request.path, firstFrame: String(decoding: request.body, as: UTF8.self))
    }
    precondition(path.activeCalls <= 4, "more calls than --max-calls")
    return 0
}

/// What every answer must look like.
func check(_ response: HTTPResponse, request: HTTPRequest) {
    precondition((200..<600).contains(response.status), "status \(response.status)")
    if response.status >= 400 {
        guard let body = try? MessageCoding.decode(ErrorBody.self, from: response.body), !body.error.isEmpty else {
            preconditionFailure("error \(response.status) without an error body")
        }
        precondition(response.errorCode == body.error, "errorCode differs from the body's code")
    }
    // Refusals the client is told to retry later say when (a 503 of unavailable media need not).
    if response.status == 429 || response.errorCode == "at_capacity" {
        precondition(Int(response.headers["Retry-After"] ?? "") != nil, "\(response.status) without Retry-After")
    }
    if case .reject = RequestHeadPolicy.decide(headers: request.headers, maxBodyBytes: 2048) {
        precondition([400, 411, 413].contains(response.status), "a refused head was answered \(response.status)")
    }
}

/// The request text as lws would deliver it; nil without a request line.
func parse(_ bytes: [UInt8], id: String, token: String) -> HTTPRequest? {
    let text = String(decoding: bytes, as: UTF8.self)
        .replacingOccurrences(of: "$ID", with: id).replacingOccurrences(of: "$TOKEN", with: token)
    let (head, body): (Substring, Substring)
    if let range = text.range(of: "\r\n\r\n") ?? text.range(of: "\n\n") {
        (head, body) = (text[..<range.lowerBound], text[range.upperBound...])
    } else {
        (head, body) = (text[...], "")
    }
    var lines = head.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
    guard !lines.isEmpty else { return nil }
    let requestLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
    guard requestLine.count >= 2 else { return nil }
    let target = requestLine[1]
    let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    var headers: [String: String] = [:]
    for line in lines {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return HTTPRequest(
        method: String(requestLine[0]), path: String(path[0]), query: path.count > 1 ? String(path[1]) : "",
        headers: headers, body: Array(body.utf8))
}

/// Runs async work to completion from libFuzzer's synchronous callback.
func run(_ work: @escaping @Sendable () async -> HTTPResponse) -> HTTPResponse {
    let box = ResponseBox()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await work()
        done.signal()
    }
    done.wait()
    return box.value!
}

final class ResponseBox: @unchecked Sendable {
    // @unchecked: written by one task before the semaphore is signalled, read after the wait.
    var value: HTTPResponse?
}
