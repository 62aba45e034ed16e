// `SessionDescription` to SDP text (CRLF line endings, RFC 8866 line order).

extension SessionDescription {
    /// The SDP text, lines ending in CRLF.
    public var text: String {
        var lines = ["v=0", "o=\(origin)", "s=\(sessionName)"]
        Self.appendCommon(otherLines, connection: connection, to: &lines)
        lines.append("t=\(timing)")
        lines += attributes.map(\.line)
        for section in media {
            lines.append("m=\(section.kind) \(section.port) \(section.proto) \(section.formats.joined(separator: " "))")
            Self.appendCommon(section.otherLines, connection: section.connection, to: &lines)
            lines += section.attributes.map(\.line)
        }
        return lines.map { $0 + "\r\n" }.joined()
    }

    /// `i=` lines come before `c=`, the rest (`b=`, `k=`, ...) after it.
    private static func appendCommon(_ others: [String], connection: String?, to lines: inout [String]) {
        lines += others.filter { $0.hasPrefix("i=") || $0.hasPrefix("u=") || $0.hasPrefix("e=") || $0.hasPrefix("p=") }
        if let connection { lines.append("c=\(connection)") }
        lines += others.filter {
            !($0.hasPrefix("i=") || $0.hasPrefix("u=") || $0.hasPrefix("e=") || $0.hasPrefix("p="))
        }
    }
}
