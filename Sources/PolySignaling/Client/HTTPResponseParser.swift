// A sans-IO HTTP/1.1 response parser for the bridge's REST answers over the project's own TLS stack: bytes
// in as the socket delivers them, one response out. It never trusts a length before checking it against
// its limits, so a hostile server can make it hold at most `maxHeadBytes + maxBodyBytes` (plus one read).

/// Parses one HTTP/1.x response (status line, headers, then a body framed by Content-Length, chunked
/// transfer coding, or the end of the connection). Interim 1xx answers are skipped. Header names are kept as
/// received (`HTTPHeaders` compares them without regard to case).
public struct HTTPResponseParser: Sendable {
    /// Why the bytes are not an acceptable response; descriptions carry no header values.
    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        case headTooLarge(limit: Int)
        case bodyTooLarge(limit: Int)
        case malformedStatusLine
        case malformedHeader
        case badContentLength
        case unsupportedTransferEncoding
        case badChunk
        /// The connection ended before the response was complete.
        case truncated

        public var description: String {
            switch self {
            case .headTooLarge(let limit): "response head larger than \(limit) bytes"
            case .bodyTooLarge(let limit): "response body larger than \(limit) bytes"
            case .malformedStatusLine: "malformed status line"
            case .malformedHeader: "malformed header line"
            case .badContentLength: "invalid Content-Length"
            case .unsupportedTransferEncoding: "unsupported Transfer-Encoding"
            case .badChunk: "malformed chunked body"
            case .truncated: "connection closed before the response was complete"
            }
        }
    }

    private enum Framing {
        case length(Int)
        case chunked
        case untilClose
    }

    private enum State {
        case head
        case body(Framing)
        /// Inside chunked coding: waiting for a size line, `remaining` bytes of data, the CRLF after them,
        /// or the trailer section.
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
        case done
        case failed(ParseError)
    }

    public let maxHeadBytes: Int
    public let maxBodyBytes: Int
    /// Whether the request was HEAD (its response has no body whatever its headers say).
    public let isHeadRequest: Bool
    private var state = State.head
    private var buffer: [UInt8] = []
    /// Where the search for the end of the head (or of a line) resumes, so small reads stay linear.
    private var scanned = 0
    private var trailerBytes = 0
    private var status = 0
    private var headers = HTTPHeaders()
    private var body: [UInt8] = []

    /// Longest chunk-size line accepted (size, extensions, CRLF).
    static let maxChunkLine = 1024

    public init(maxHeadBytes: Int = 64 * 1024, maxBodyBytes: Int = 4 * 1024 * 1024, isHeadRequest: Bool = false) {
        self.maxHeadBytes = max(64, maxHeadBytes)
        self.maxBodyBytes = max(0, maxBodyBytes)
        self.isHeadRequest = isHeadRequest
    }

    /// Feeds bytes read from the connection; returns the response once it is complete (later bytes are ignored).
    public mutating func receive(_ bytes: some Sequence<UInt8>) throws(ParseError) -> HTTPClientResponse? {
        switch state {
        case .done: return nil
        case .failed(let error): throw error
        default: break
        }
        buffer.append(contentsOf: bytes)
        do throws(ParseError) {
            return try advance()
        } catch {
            state = .failed(error)
            buffer = []
            throw error
        }
    }

    /// The connection ended: the response if it was framed by the end of the connection, else `.truncated`.
    public mutating func finish() throws(ParseError) -> HTTPClientResponse {
        switch state {
        case .body(.untilClose):
            state = .done
            return HTTPClientResponse(status: status, headers: headers, body: body)
        case .failed(let error): throw error
        default:
            state = .failed(.truncated)
            throw .truncated
        }
    }

    private mutating func advance() throws(ParseError) -> HTTPClientResponse? {
        while true {
            switch state {
            case .head:
                guard let end = try headEnd() else { return nil }
                try parseHead(Array(buffer[0..<end]))
                buffer.removeFirst(end + 4)
                scanned = 0
            case .body(.length(let remaining)):
                let take = min(remaining, buffer.count)
                body += buffer[0..<take]
                buffer.removeFirst(take)
                guard take == remaining else {
                    state = .body(.length(remaining - take))
                    return nil
                }
                return complete()
            case .body(.untilClose):
                guard body.count + buffer.count <= maxBodyBytes else { throw .bodyTooLarge(limit: maxBodyBytes) }
                body += buffer
                buffer = []
                return nil
            case .body(.chunked), .chunkSize:
                guard let line = try line(limit: Self.maxChunkLine, error: .badChunk) else { return nil }
                let size = try Self.chunkSize(line)
                guard size <= maxBodyBytes - body.count else { throw .bodyTooLarge(limit: maxBodyBytes) }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let take = min(remaining, buffer.count)
                body += buffer[0..<take]
                buffer.removeFirst(take)
                guard take == remaining else {
                    state = .chunkData(remaining: remaining - take)
                    return nil
                }
                state = .chunkEnd
            case .chunkEnd:
                guard buffer.count >= 2 else { return nil }
                guard buffer[0] == 13, buffer[1] == 10 else { throw .badChunk }
                buffer.removeFirst(2)
                state = .chunkSize
            case .trailers:
                guard let line = try line(limit: maxHeadBytes - trailerBytes, error: .headTooLarge(limit: maxHeadBytes))
                else { return nil }
                trailerBytes += line.count + 2
                if line.isEmpty { return complete() }
            case .done, .failed:
                return nil
            }
        }
    }

    private mutating func complete() -> HTTPClientResponse {
        state = .done
        buffer = []
        return HTTPClientResponse(status: status, headers: headers, body: body)
    }

    /// Index of the CRLFCRLF ending the head, or nil while it has not arrived (within the limit).
    private mutating func headEnd() throws(ParseError) -> Int? {
        let searchable = min(buffer.count, maxHeadBytes)
        var index = max(0, scanned - 3)
        while index + 3 < searchable {
            if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
                return index
            }
            index += 1
        }
        scanned = searchable
        if buffer.count >= maxHeadBytes { throw .headTooLarge(limit: maxHeadBytes) }
        return nil
    }

    /// The next CRLF-terminated line (without it, at most `limit` bytes), consumed; nil while incomplete.
    private mutating func line(limit: Int, error: ParseError) throws(ParseError) -> [UInt8]? {
        var index = 0
        while index < buffer.count {
            if index > limit { throw error }
            if buffer[index] == 13 {
                guard index + 1 < buffer.count else { return nil }
                guard buffer[index + 1] == 10 else { throw error }
                let line = Array(buffer[0..<index])
                buffer.removeFirst(index + 2)
                return line
            }
            index += 1
        }
        return nil
    }

    private mutating func parseHead(_ head: [UInt8]) throws(ParseError) {
        var lines = Self.split(head)
        guard !lines.isEmpty else { throw .malformedStatusLine }
        let code = try Self.statusCode(lines.removeFirst())
        var parsed = HTTPHeaders()
        for line in lines {
            let field = try Self.header(line)
            parsed.add(name: field.name, value: field.value)
        }
        if (100...199).contains(code) {
            return  // an interim answer (100 Continue…): the real one follows in the same stream
        }
        status = code
        headers = parsed
        state = .body(try framing(status: code, headers: parsed))
    }

    private func framing(status: Int, headers: HTTPHeaders) throws(ParseError) -> Framing {
        if isHeadRequest || status == 204 || status == 304 { return .length(0) }
        let codings = headers.values(for: "Transfer-Encoding")
        if !codings.isEmpty {
            // Only plain chunked: anything else (gzip…) is never asked for, and a length would be a guess.
            let values = codings.flatMap { $0.split(separator: ",") }.map {
                $0.trimmingWhitespace().lowercased()
            }
            guard values == ["chunked"] else { throw .unsupportedTransferEncoding }
            return .chunked
        }
        let lengths = headers.values(for: "Content-Length").flatMap { $0.split(separator: ",") }.map {
            $0.trimmingWhitespace()
        }
        guard let first = lengths.first else { return .untilClose }
        guard lengths.allSatisfy({ $0 == first }), first.count <= 18, !first.isEmpty,
            first.utf8.allSatisfy({ (48...57).contains($0) }), let length = Int(first)
        else { throw .badContentLength }
        guard length <= maxBodyBytes else { throw .bodyTooLarge(limit: maxBodyBytes) }
        return .length(length)
    }

    private static func split(_ head: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var start = 0
        var index = 0
        while index < head.count {
            if head[index] == 13, index + 1 < head.count, head[index + 1] == 10 {
                lines.append(Array(head[start..<index]))
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        lines.append(Array(head[start..<head.count]))
        return lines
    }

    /// `HTTP/1.x SSS[ reason]` → SSS (100…599).
    private static func statusCode(_ line: [UInt8]) throws(ParseError) -> Int {
        let prefix = Array("HTTP/1.".utf8)
        guard line.count >= 12, Array(line[0..<7]) == prefix, (48...57).contains(line[7]), line[8] == 32 else {
            throw .malformedStatusLine
        }
        let digits = line[9..<12]
        guard digits.allSatisfy({ (48...57).contains($0) }), line.count == 12 || line[12] == 32 else {
            throw .malformedStatusLine
        }
        let code = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
        guard (100...599).contains(code) else { throw .malformedStatusLine }
        return code
    }

    /// `name: value` with a token name (no folding, no spaces before the colon, no control bytes).
    private static func header(_ line: [UInt8]) throws(ParseError) -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: 58), colon > 0 else { throw .malformedHeader }
        let name = line[0..<colon]
        guard name.allSatisfy(isTokenByte) else { throw .malformedHeader }
        let value = line[(colon + 1)...]
        guard value.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else { throw .malformedHeader }
        let text = String(decoding: value, as: UTF8.self).trimmingWhitespace()
        return (String(decoding: name, as: UTF8.self), text)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 48...57, 65...90, 97...122: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// A chunk-size line: hex digits (at most 8, so no overflow), then optional `;extensions`.
    private static func chunkSize(_ line: [UInt8]) throws(ParseError) -> Int {
        let digits = line.prefix { $0 != 59 }.filter { $0 != 32 && $0 != 9 }
        guard !digits.isEmpty, digits.count <= 8 else { throw .badChunk }
        var size = 0
        for byte in digits {
            let value: Int
            switch byte {
            case 48...57: value = Int(byte - 48)
            case 65...70: value = Int(byte - 55)
            case 97...102: value = Int(byte - 87)
            default: throw .badChunk
            }
            size = size * 16 + value
        }
        return size
    }
}
