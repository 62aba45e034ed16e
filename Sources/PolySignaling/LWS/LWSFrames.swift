// WebSocket helpers shared by the events client and the server (service thread only).
import CWebSockets
import PolyCore

/// How and why a WebSocket ended.
public struct WebSocketClose: Equatable, Sendable, CustomStringConvertible {
    /// The close code: 1000 normal, 1008 policy violation, 1006 abnormal (no close frame).
    public var code: Int
    public var reason: String

    public init(code: Int, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    public static let normal = 1000
    public static let policyViolation = 1008
    public static let abnormal = 1006
    public static let messageTooBig = 1009

    public var isNormal: Bool { code == Self.normal }
    public var isPolicyViolation: Bool { code == Self.policyViolation }
    public var isAbnormal: Bool { code == Self.abnormal }

    public var description: String { reason.isEmpty ? "close \(code)" : "close \(code) (\(reason))" }
}

enum LWSFrames {
    /// Sends one complete text message. Returns false if lws failed (the connection is then closing).
    static func sendText(_ wsi: OpaquePointer, _ text: String) -> Bool {
        let payload = Array(text.utf8)
        let pre = pv_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre + payload.count)
        buffer.replaceSubrange(pre..<buffer.count, with: payload)
        return buffer.withUnsafeMutableBufferPointer { pointer in
            lws_write(wsi, pointer.baseAddress! + pre, payload.count, LWS_WRITE_TEXT) >= payload.count
        }
    }

    /// What `writeNext` did.
    enum FrameWrite {
        case idle, sent, failed
        /// The outbox is empty and a close was requested: the close reason is set; return -1 to lws.
        case closing(WebSocketClose)
    }

    /// Sends the oldest queued frame (asking for another writable callback while more is queued), or
    /// starts the requested close once the outbox is empty.
    static func writeNext(_ wsi: OpaquePointer, outbox: inout [String], closeRequest: WebSocketClose?) -> FrameWrite {
        if !outbox.isEmpty {
            guard sendText(wsi, outbox.removeFirst()) else { return .failed }
            if !outbox.isEmpty || closeRequest != nil { lws_callback_on_writable(wsi) }
            return .sent
        }
        guard let closeRequest else { return .idle }
        setCloseReason(wsi, code: closeRequest.code, reason: closeRequest.reason)
        return .closing(closeRequest)
    }

    /// Sets the code and reason lws puts in its close frame when the callback then returns -1.
    static func setCloseReason(_ wsi: OpaquePointer, code: Int, reason: String) {
        var bytes = Array(reason.utf8.prefix(120))
        bytes.withUnsafeMutableBufferPointer { pointer in
            lws_close_reason(wsi, lws_close_status(UInt32(clamping: code)), pointer.baseAddress, pointer.count)
        }
    }

    /// Parses a peer's close payload (2-byte code, then UTF-8 reason); nil if it carried no code.
    static func parseClose(_ input: UnsafeMutableRawPointer?, length: Int) -> WebSocketClose? {
        guard let input, length >= 2 else { return nil }
        return WebSocketClose(payload: Array(UnsafeRawBufferPointer(start: input, count: length)))
    }
}

extension WebSocketClose {
    /// A close frame's payload (2-byte code, then UTF-8 reason); nil if it carries no code.
    public init?(payload: [UInt8]) {
        var reader = ByteReader(payload)
        guard let code = try? reader.readUInt16(), let rest = try? reader.readBytes(reader.remaining) else {
            return nil
        }
        self.init(code: Int(code), reason: String(decoding: rest, as: UTF8.self))
    }
}

/// Joins the fragments of one WebSocket message, up to a size limit (sans-IO; `append(_:length:wsi:)` is the
/// libwebsockets adapter).
public struct MessageAssembler: Sendable {
    public let limit: Int
    private var bytes: [UInt8] = []

    public init(limit: Int) { self.limit = limit }

    public enum Outcome: Equatable, Sendable {
        case incomplete
        case message(String)
        case tooBig
    }

    /// Appends a received fragment; returns the message once its last fragment (`final`) arrived.
    /// Past `limit` bytes the partial message is discarded and `.tooBig` returned (the caller closes, 1009).
    public mutating func append(_ fragment: UnsafeRawBufferPointer, final: Bool) -> Outcome {
        if !fragment.isEmpty {
            guard fragment.count <= limit - bytes.count else {
                bytes = []
                return .tooBig
            }
            bytes.append(contentsOf: fragment)
        }
        guard final else { return .incomplete }
        defer { bytes = [] }
        return .message(String(decoding: bytes, as: UTF8.self))
    }

    /// Bytes of the message being assembled.
    public var pendingBytes: Int { bytes.count }

    /// Appends what lws delivered in a receive callback.
    mutating func append(_ input: UnsafeMutableRawPointer?, length: Int, wsi: OpaquePointer) -> Outcome {
        let final = lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0
        guard let input, length > 0 else { return append(UnsafeRawBufferPointer(start: nil, count: 0), final: final) }
        return append(UnsafeRawBufferPointer(start: input, count: length), final: final)
    }
}
