// Section 4 of PROTOCOL.md: frames on the events socket.

/// The client's first frame: `{"type":"auth","token":…}`. The token is redacted in descriptions.
public struct AuthFrame: Codable, Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public var type: String
    public var token: String

    public init(token: String) {
        self.type = "auth"
        self.token = token
    }

    /// Parses an auth frame (for servers); nil if `text` is not one. Compare the token in constant time.
    public static func parse(_ text: String) -> AuthFrame? {
        guard let frame = try? MessageCoding.decode(AuthFrame.self, from: Array(text.utf8)), frame.type == "auth"
        else { return nil }
        return frame
    }

    public var description: String { "AuthFrame(token: \(Redaction.token(token)))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

/// An event the bridge sends on the events socket.
public enum BridgeEvent: Equatable, Sendable {
    /// Run a new pull (renegotiation).
    case repull
    /// The caller interrupted: stop playing the agent's audio and flush it. Carries the exact event name.
    case bargeIn(String)
    /// Resume playing the agent's audio.
    case unmute

    private struct Frame: Decodable { var event: String }

    /// Parses a text frame; nil for anything unknown or malformed (ignored for forward compatibility).
    public static func parse(_ text: String) -> BridgeEvent? {
        guard let frame = try? MessageCoding.decode(Frame.self, from: Array(text.utf8)) else { return nil }
        switch frame.event {
        case "repull": return .repull
        case "unmute": return .unmute
        case let name where name.hasPrefix("barge-in"): return .bargeIn(name)
        default: return nil
        }
    }

    /// The JSON frame a bridge sends for this event.
    public var frameText: String {
        switch self {
        case .repull: return #"{"event":"repull"}"#
        case .unmute: return #"{"event":"unmute"}"#
        case .bargeIn(let name):
            return String(decoding: MessageCoding.encode(["event": name]), as: UTF8.self)
        }
    }
}
