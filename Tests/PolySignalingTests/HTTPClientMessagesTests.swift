// The client's own HTTP values: header names compare in any case, repeated fields keep their order, setting a
// field replaces every one of its name, and no description shows a URL, a header value or a body.
import Foundation
import PolySignaling
import Testing

@Suite("HTTP client messages")
struct HTTPClientMessagesTests {
    @Test func namesCompareInAnyCaseAndRepeatedFieldsJoinInOrder() {
        var headers = HTTPHeaders([("Retry-After", "3"), ("Via", "a"), ("via", "b")])
        #expect(headers["retry-after"] == "3" && headers["RETRY-AFTER"] == "3")
        #expect(headers["VIA"] == "a, b")
        #expect(headers.values(for: "Via") == ["a", "b"])
        #expect(headers["Missing"] == nil && headers.values(for: "Missing").isEmpty)
        headers.add(name: "VIA", value: "c")
        #expect(headers.values(for: "via") == ["a", "b", "c"])
    }

    @Test func settingReplacesEveryFieldOfTheNameAtTheFirstOnesPlace() {
        var headers = HTTPHeaders([("A", "1"), ("X", "x1"), ("B", "2"), ("x", "x2")])
        headers["X"] = "new"
        #expect(headers.fields.map(\.name) == ["A", "X", "B"])
        #expect(headers["x"] == "new")
        headers["C"] = "3"  // absent: appended
        #expect(headers.fields.map(\.name) == ["A", "X", "B", "C"])
        headers["a"] = nil  // removes whatever its case
        #expect(headers.fields.map(\.name) == ["X", "B", "C"])
        headers["Nothing"] = nil
        #expect(headers.fields.count == 3)
    }

    @Test func aDictionaryLiteralKeepsOneFieldPerName() {
        let headers: HTTPHeaders = ["Accept": "a", "accept": "b", "X-Call-Token": "t"]
        #expect(headers.fields.count == 2)
        #expect(headers["ACCEPT"] == "b")
        let empty: HTTPHeaders = [:]
        #expect(empty.fields.isEmpty && Array(empty).isEmpty)
    }

    @Test func equalityIgnoresNameCaseButNotOrderOrValues() {
        #expect(HTTPHeaders([("A", "1"), ("b", "2")]) == HTTPHeaders([("a", "1"), ("B", "2")]))
        #expect(HTTPHeaders([("A", "1"), ("B", "2")]) != HTTPHeaders([("B", "2"), ("A", "1")]))
        #expect(HTTPHeaders([("A", "1")]) != HTTPHeaders([("A", "1 ")]))
        #expect(HTTPHeaders([("A", "1")]) != HTTPHeaders([("A", "1"), ("A", "1")]))
    }

    @Test func descriptionsShowNoURLHeaderValueOrBody() {
        let request = HTTPClientRequest(
            method: "POST", url: URL(string: "https://bridge.test/api/v1/call/call-secret-id/sdp")!,
            headers: ["X-Call-Token": "per-call-secret-token", "Authorization": "Bearer web-secret-token"],
            body: Array(#"{"sdp":"secret-sdp"}"#.utf8))
        let response = HTTPClientResponse(
            status: 201, headers: ["Set-Cookie": "session=secret-cookie"], body: Array("secret-body".utf8))
        for text in ["\(request)", "\(response)", "\(request.headers)"] {
            #expect(!text.contains("secret") && !text.contains("bridge.test"), "\(text)")
        }
        #expect("\(request)" == "HTTPClientRequest(POST, headers: [X-Call-Token, Authorization], body: 20 bytes)")
        #expect("\(response)" == "HTTPClientResponse(201, headers: [Set-Cookie], body: 11 bytes)")
    }

    @Test func defaultsAndSuccess() {
        let request = HTTPClientRequest(url: URL(string: "http://h/")!)
        #expect(request.method == "GET" && request.body == nil && request.timeout == .seconds(60))
        #expect(request.headers.fields.isEmpty)
        #expect(HTTPClientResponse(status: 200).isSuccess && HTTPClientResponse(status: 299).isSuccess)
        #expect(!HTTPClientResponse(status: 199).isSuccess && !HTTPClientResponse(status: 300).isSuccess)
    }
}
