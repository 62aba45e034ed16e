// `--ice-server URL` (repeatable) with TURN credentials from the environment or a file, never from the
// command line (where shell history and process lists would keep them).
import FoundationEssentials
import PolyNet
import PolyVoice

enum ICEServerArguments {
    static func servers(_ parsed: Arguments) throws -> [ICEServerConfiguration] {
        let urls = parsed.strings("ice-server")
        for url in urls where ICEServerURL(url) == nil {
            throw UsageError(
                "--ice-server must be stun:HOST[:PORT], turn:HOST[:PORT][?transport=udp|tcp] or turns:HOST[:PORT], not '\(url)'"
            )
        }
        guard !urls.isEmpty else {
            if parsed.string("turn-credential-file") != nil {
                throw UsageError("--turn-credential-file needs --ice-server")
            }
            return []
        }
        let (username, credential) = try credentials(parsed)
        return urls.map { url in
            url.lowercased().hasPrefix("turn")
                ? ICEServerConfiguration(urls: [url], username: username, credential: credential)
                : ICEServerConfiguration(urls: [url])
        }
    }

    /// From --turn-credential-file (username, then credential, on the first two non-comment lines) or
    /// POLYVOICE_TURN_USERNAME / POLYVOICE_TURN_CREDENTIAL; nil when neither is given.
    static func credentials(_ parsed: Arguments) throws -> (String?, String?) {
        if let path = parsed.string("turn-credential-file") {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw UsageError("cannot read --turn-credential-file '\(path)'")
            }
            let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            guard lines.count >= 2 else {
                throw UsageError("--turn-credential-file '\(path)' needs the username and the credential on two lines")
            }
            return (lines[0], lines[1])
        }
        let environment = ProcessInfo.processInfo.environment
        return (
            environment["POLYVOICE_TURN_USERNAME"].flatMap { $0.isEmpty ? nil : $0 },
            environment["POLYVOICE_TURN_CREDENTIAL"].flatMap { $0.isEmpty ? nil : $0 }
        )
    }
}
