// HTTPResponseParser on whole, split, malformed, truncated and oversized answers: it never crashes, never
// trusts a length beyond its limits, and says what was wrong.
import Foundation
import PolySignaling
import Testing

@Suite("HTTP/1.1 response parser")
struct HTTPResponseParserTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Feeds `input` in pieces of `step` bytes, then the end of the stream if nothing completed.
    static func parse(_ input: [UInt8], step: Int = .max, parser: HTTPResponseParser = HTTPResponseParser())
        throws(HTTPResponseParser.ParseError) -> HTTPClientResponse
    {
        var parser = parser
        var index = 0
        while index < input.count {
            let end = index + min(step, input.count - index)
            if let response = try parser.receive(input[index..<end]) { return response }
            index = end
        }
        return try parser.finish()
    }

    @Test func contentLengthBodyWholeAndByteByByte() throws {
        let input = Self.bytes(
            "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}")
        for step in [1, 2, 5, 1000] {
            let response = try Self.parse(input, step: step)
            #expect(response.status == 201)
            #expect(response.body == Self.bytes("{\"a\":1}"))
            #expect(response.headers["content-type"] == "application/json")
            #expect(response.headers["Content-Length"] == "7")
        }
    }

    @Test func completesWithoutWaitingForTheClose() throws {
        var parser = HTTPResponseParser()
        let response = try parser.receive(Self.bytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA"))
        #expect(response?.body == Self.bytes("ok"))
        #expect(try parser.receive(Self.bytes("more")) == nil)
    }

    @Test func chunkedBodyWithExtensionsAndTrailers() throws {
        let input = Self.bytes(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks."
                + "\r\n0\r\nX-Trailer: t\r\n\r\n")
        for step in [1, 3, 1000] {
            let response = try Self.parse(input, step: step)
            #expect(String(decoding: response.body, as: UTF8.self) == "Wikipedia in\r\n\r\nchunks.")
        }
    }

    @Test func bodyUntilCloseAndEmptyBodies() throws {
        let untilClose = try Self.parse(Self.bytes("HTTP/1.0 200 OK\r\n\r\nall of it"))
        #expect(untilClose.body == Self.bytes("all of it"))
        var parser = HTTPResponseParser()
        let noContent = try parser.receive(Self.bytes("HTTP/1.1 204 No Content\r\nContent-Length: 99\r\n\r\n"))
        #expect(noContent?.status == 204 && noContent?.body == [])
    }

    @Test func interimAnswersAreSkipped() throws {
        let response = try Self.parse(
            Self.bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"), step: 3)
        #expect(response.status == 200 && response.body == Self.bytes("x"))
    }

    @Test func repeatedHeadersAreJoined() throws {
        let response = try Self.parse(Self.bytes("HTTP/1.1 200 OK\r\nA: 1\r\na: 2\r\nContent-Length: 0\r\n\r\n"))
        #expect(response.headers["a"] == "1, 2")
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", HTTPResponseParser.ParseError.truncated),
        ("HTTP/1.1 200 OK\r\nContent-Le", .truncated),
        ("", .truncated),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", .truncated),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n", .truncated),
    ])
    func truncatedResponsesFail(input: String, error: HTTPResponseParser.ParseError) {
        #expect(throws: error) { try Self.parse(Self.bytes(input)) }
    }

    @Test(arguments: [
        ("HTTP/2 200 OK\r\n\r\n", HTTPResponseParser.ParseError.malformedStatusLine),
        ("HTTP/1.1 20 OK\r\n\r\n", .malformedStatusLine),
        ("HTTP/1.1 2000 OK\r\n\r\n", .malformedStatusLine),
        ("HTTP/1.1 099 x\r\n\r\n", .malformedStatusLine),
        ("SSH-2.0-OpenSSH\r\n\r\n", .malformedStatusLine),
        ("HTTP/1.1 200 OK\r\nno colon\r\n\r\n", .malformedHeader),
        ("HTTP/1.1 200 OK\r\n folded: x\r\n\r\n", .malformedHeader),
        ("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", .malformedHeader),
        ("HTTP/1.1 200 OK\r\nA: b\u{1}c\r\n\r\n", .malformedHeader),
        ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", .badContentLength),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", .badContentLength),
        ("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n", .badContentLength),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", .badContentLength),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferEncoding),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .badChunk),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n123456789\r\n", .badChunk),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nabc", .badChunk),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", .badChunk),
    ])
    func malformedResponsesFail(input: String, error: HTTPResponseParser.ParseError) {
        for step in [1, 1000] {
            #expect(throws: error) { try Self.parse(Self.bytes(input), step: step) }
        }
    }

    @Test func oversizedHeadsAndBodiesFailEarly() throws {
        let limits = HTTPResponseParser(maxHeadBytes: 1024, maxBodyBytes: 100)
        // A head that never ends: fails once past the limit, not when the server stops.
        var endless = limits
        #expect(throws: HTTPResponseParser.ParseError.headTooLarge(limit: 1024)) {
            for _ in 0..<100 {
                _ = try endless.receive(Self.bytes("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 100)))
            }
        }
        // A declared length over the limit fails before any body arrives.
        #expect(throws: HTTPResponseParser.ParseError.bodyTooLarge(limit: 100)) {
            try Self.parse(Self.bytes("HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n"), parser: limits)
        }
        #expect(throws: HTTPResponseParser.ParseError.bodyTooLarge(limit: 100)) {
            try Self.parse(
                Self.bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFF\r\n"), parser: limits)
        }
        // Many small chunks add up.
        let chunks = String(repeating: "a\r\n0123456789\r\n", count: 11)
        #expect(throws: HTTPResponseParser.ParseError.bodyTooLarge(limit: 100)) {
            try Self.parse(Self.bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks), parser: limits)
        }
        #expect(throws: HTTPResponseParser.ParseError.bodyTooLarge(limit: 100)) {
            try Self.parse(
                Self.bytes("HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "b", count: 101)), step: 7, parser: limits)
        }
        // Endless trailers.
        #expect(throws: HTTPResponseParser.ParseError.headTooLarge(limit: 1024)) {
            let trailers = String(repeating: "T: x\r\n", count: 300)
            _ = try Self.parse(
                Self.bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + trailers), parser: limits)
        }
        // Exactly at the limit is fine.
        let full = try Self.parse(
            Self.bytes("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + String(repeating: "c", count: 100)),
            parser: limits)
        #expect(full.body.count == 100)
    }

    @Test func afterAnErrorItStaysFailed() {
        var parser = HTTPResponseParser()
        #expect(throws: HTTPResponseParser.ParseError.malformedStatusLine) {
            try parser.receive(Self.bytes("garbage\r\n\r\n"))
        }
        #expect(throws: HTTPResponseParser.ParseError.malformedStatusLine) {
            try parser.receive(Self.bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
        }
    }

    @Test func randomBytesNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Self.bytes(
            "HTTP/1.1 200 OK\r\n:Content-Length: Transfer-Encoding: chunked 0123456789abcdefXYZ;\r\n\t ")
        for _ in 0..<2000 {
            let length = Int.random(in: 0..<300, using: &generator)
            let input = (0..<length).map { _ in
                Bool.random(using: &generator)
                    ? alphabet.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? Self.parse(
                Self.bytes("HTTP/1.1 200 OK\r\n") + input, step: Int.random(in: 1...50, using: &generator),
                parser: HTTPResponseParser(maxHeadBytes: 256, maxBodyBytes: 128))
        }
    }
}

@Suite("HTTP/1.1 request encoder")
struct HTTPRequestEncoderTests {
    @Test func postWithBodyHostPortAndFraming() throws {
        let request = HTTPClientRequest(
            method: "POST", url: URL(string: "https://bridge.example:8443/api/v1/call?x=a%20b")!,
            headers: ["Content-Type": "application/json", "Content-Length": "999"],  // the encoder's framing wins
            body: Array("{}".utf8))
        let text = String(decoding: try HTTPRequestEncoder.encode(request), as: UTF8.self)
        #expect(text.hasPrefix("POST /api/v1/call?x=a%20b HTTP/1.1\r\nHost: bridge.example:8443\r\n"))
        #expect(text.contains("Content-Type: application/json\r\n"))
        #expect(text.contains("Content-Length: 2\r\n") && !text.contains("999"))
        #expect(text.hasSuffix("Connection: close\r\n\r\n{}"))
    }

    @Test func repeatedHeadersAreSentInOrder() throws {
        var headers: HTTPHeaders = ["Accept": "a/b"]
        headers.add(name: "X-Tag", value: "1")
        headers.add(name: "x-tag", value: "2")
        let text = String(
            decoding: try HTTPRequestEncoder.encode(
                HTTPClientRequest(url: URL(string: "http://h/")!, headers: headers)),
            as: UTF8.self)
        #expect(text == "GET / HTTP/1.1\r\nHost: h\r\nAccept: a/b\r\nX-Tag: 1\r\nx-tag: 2\r\nConnection: close\r\n\r\n")
    }

    @Test func defaultPortsAndIPv6Hosts() throws {
        let plain = String(
            decoding: try HTTPRequestEncoder.encode(HTTPClientRequest(url: URL(string: "https://h:443")!)),
            as: UTF8.self)
        #expect(plain.hasPrefix("GET / HTTP/1.1\r\nHost: h\r\n"))
        let v6 = String(
            decoding: try HTTPRequestEncoder.encode(HTTPClientRequest(url: URL(string: "http://[::1]:8080/p")!)),
            as: UTF8.self)
        #expect(v6.contains("Host: [::1]:8080\r\n"))
    }

    @Test func headerInjectionIsRefusedWithoutShowingTheValue() throws {
        // Nothing between the caller and the encoder drops CR/LF now: the encoder itself must refuse them.
        for value in ["secret-token\r\nX-Evil: 1", "secret\u{1}token", "secret\ntoken"] {
            let request = HTTPClientRequest(url: URL(string: "https://h/")!, headers: ["X-Call-Token": value])
            #expect(throws: HTTPRequestEncoder.EncodeError.invalidHeader(name: "X-Call-Token")) {
                try HTTPRequestEncoder.encode(request)
            }
        }
        for name in ["", "X Evil", "X:Evil", "X\r\nEvil"] {
            let request = HTTPClientRequest(url: URL(string: "https://h/")!, headers: HTTPHeaders([(name, "v")]))
            #expect(throws: HTTPRequestEncoder.EncodeError.invalidHeader(name: "(unnamed)")) {
                try HTTPRequestEncoder.encode(request)
            }
        }
        #expect(!"\(HTTPRequestEncoder.EncodeError.invalidHeader(name: "X-Call-Token"))".contains("secret"))
        // A request target with a space or line break cannot be smuggled either, nor a method.
        let target = HTTPClientRequest(url: URL(string: "https://h/a%0D%0Ab")!)
        let text = String(decoding: try HTTPRequestEncoder.encode(target), as: UTF8.self)
        #expect(text.hasPrefix("GET /a%0D%0Ab HTTP/1.1\r\n"))
        for method in ["", "get", "GET /x HTTP/1.1\r\nX:", "P0ST"] {
            #expect(throws: HTTPRequestEncoder.EncodeError.invalidURL) {
                try HTTPRequestEncoder.encode(HTTPClientRequest(method: method, url: URL(string: "https://h/")!))
            }
        }
    }

    @Test func bodiesAndTheirLength() throws {
        func encoded(_ method: String, _ body: [UInt8]?) throws -> String {
            String(
                decoding: try HTTPRequestEncoder.encode(
                    HTTPClientRequest(method: method, url: URL(string: "http://h/")!, body: body)),
                as: UTF8.self)
        }
        #expect(!(try encoded("DELETE", nil)).contains("Content-Length"))
        #expect(!(try encoded("GET", [])).contains("Content-Length"))
        #expect(try encoded("POST", nil).contains("Content-Length: 0\r\n"))
        #expect(try encoded("DELETE", [1, 2]).hasSuffix("Content-Length: 2\r\nConnection: close\r\n\r\n\u{1}\u{2}"))
    }
}
