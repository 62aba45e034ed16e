// SDP text to `SessionDescription`: line by line, known attributes validated, unknown ones kept.

extension SessionDescription {
    /// Parses SDP text (CRLF or LF). Malformed lines throw `SDPError.malformed` with their 1-based number.
    public init(parsing text: String) throws(SDPError) {
        // "\r\n" is one Character in Swift, so split on any newline rather than on "\n".
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard lines.first == "v=0" else { throw .malformed(line: 1, reason: "expected v=0") }

        var session = SessionDescription(origin: "")
        var hasOrigin = false
        var current: MediaDescription?
        for (offset, line) in lines.enumerated().dropFirst() {
            let number = offset + 1
            func fail(_ reason: String) -> SDPError { .malformed(line: number, reason: reason) }
            let characters = Array(line.utf8.prefix(2))
            guard characters.count == 2, characters[1] == UInt8(ascii: "="),
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(characters[0])
            else { throw fail("not <type>=<value>") }
            let type = Character(UnicodeScalar(characters[0]))
            let value = String(line.dropFirst(2))
            switch type {
            case "o":
                guard current == nil, value.split(separator: " ").count == 6 else { throw fail("bad o= line") }
                session.origin = value
                hasOrigin = true
            case "s":
                session.sessionName = value
            case "t":
                guard value.split(separator: " ").count == 2 else { throw fail("bad t= line") }
                session.timing = value
            case "c":
                guard value.split(separator: " ").count == 3, value.hasPrefix("IN ") else { throw fail("bad c= line") }
                if current != nil { current?.connection = value } else { session.connection = value }
            case "m":
                if let done = current { session.media.append(done) }
                current = try Self.parseMediaLine(value, line: number)
            case "a":
                let attribute = try Self.parseAttribute(value, line: number)
                if current != nil {
                    current?.attributes.append(attribute)
                } else {
                    session.attributes.append(attribute)
                }
            default:
                if current != nil {
                    current?.otherLines.append(String(line))
                } else {
                    session.otherLines.append(String(line))
                }
            }
        }
        if let done = current { session.media.append(done) }
        guard hasOrigin else { throw .malformed(line: 1, reason: "missing o= line") }
        self = session
    }

    private static func parseMediaLine(_ value: String, line: Int) throws(SDPError) -> MediaDescription {
        let fields = value.split(separator: " ").map(String.init)
        guard fields.count >= 4 else { throw .malformed(line: line, reason: "m= needs media, port, proto, formats") }
        let portText = fields[1].split(separator: "/").first.map(String.init) ?? ""
        guard let port = UInt16(portText) else { throw .malformed(line: line, reason: "bad m= port") }
        return MediaDescription(
            kind: fields[0], port: port, proto: fields[2], formats: Array(fields[3...]), connection: nil)
    }

    private static func parseAttribute(_ text: String, line: Int) throws(SDPError) -> SDPAttribute {
        let name: String
        let value: String?
        if let colon = text.firstIndex(of: ":") {
            name = String(text[..<colon])
            value = String(text[text.index(after: colon)...])
        } else {
            name = text
            value = nil
        }
        guard !name.isEmpty, !name.contains(" ") else { throw .malformed(line: line, reason: "bad attribute name") }
        func require(_ valid: Bool) throws(SDPError) {
            if !valid { throw .malformed(line: line, reason: "bad a=\(name)") }
        }
        let v = value ?? ""
        switch name {
        case "rtpmap": try require(RTPMap(v) != nil)
        case "fmtp":
            try require(v.split(separator: " ", maxSplits: 1).first.flatMap { Int($0) } != nil)
        case "candidate":
            var unresolvable = false
            try require(Candidate(sdpValue: v, unresolvable: &unresolvable) != nil || unresolvable)
        case "fingerprint": try require(SDPFingerprint(v) != nil)
        case "setup": try require(SDPSetup(rawValue: v) != nil)
        case "mid", "ice-ufrag", "ice-pwd", "group": try require(!v.isEmpty)
        case "extmap": try require(SDPExtmap(v) != nil)
        case "ssrc": try require(v.split(separator: " ").first.flatMap { UInt32($0) } != nil)
        default: break
        }
        return SDPAttribute(name, value)
    }
}
