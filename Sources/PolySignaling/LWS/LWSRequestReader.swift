// Reading request lines and headers that libwebsockets has parsed (service thread only).
import CWebSockets

enum LWSRequestReader {
    private static let methods: [(lws_token_indexes, String)] = [
        (WSI_TOKEN_GET_URI, "GET"), (WSI_TOKEN_POST_URI, "POST"), (WSI_TOKEN_PUT_URI, "PUT"),
        (WSI_TOKEN_PATCH_URI, "PATCH"), (WSI_TOKEN_DELETE_URI, "DELETE"), (WSI_TOKEN_OPTIONS_URI, "OPTIONS"),
        (WSI_TOKEN_HEAD_URI, "HEAD"),
    ]

    /// The request's method and path, from whichever method token lws filled in.
    static func methodAndPath(_ wsi: OpaquePointer) -> (String, String)? {
        for (token, method) in methods where lws_hdr_total_length(wsi, token) > 0 {
            if let path = copy(wsi, token) { return (method, path) }
        }
        return nil
    }

    /// The peer's IP address as text (empty if unknown).
    static func peerAddress(_ wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &buffer, buffer.count) != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A parsed header (all fragments) as a string.
    static func copy(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Every standard header lws parsed, plus the listed custom ones, with lower-cased names.
    static func headers(_ wsi: OpaquePointer, custom: [String]) -> [String: String] {
        var headers: [String: String] = [:]
        for index in 0..<Int(WSI_TOKEN_COUNT.rawValue) {
            let token = lws_token_indexes(rawValue: UInt32(index))
            guard let cName = lws_token_to_string(token) else { continue }
            let name = String(cString: cName)
            guard name.hasSuffix(":"), let value = copy(wsi, token) else { continue }
            headers[String(name.dropLast()).lowercased()] = value
        }
        for name in custom {
            let lookup = name.lowercased() + ":"
            let length = Int(lws_hdr_custom_length(wsi, lookup, Int32(lookup.utf8.count)))
            guard length > 0 else { continue }
            var buffer = [CChar](repeating: 0, count: length + 1)
            guard lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), lookup, Int32(lookup.utf8.count)) >= 0
            else { continue }
            headers[name.lowercased()] = String(
                decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return headers
    }
}

enum LWSResponseWriter {
    /// Writes the status line and headers (with Content-Type and Content-Length).
    static func writeHeaders(_ wsi: OpaquePointer, _ response: HTTPResponse) -> Bool {
        let pre = pv_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre + 4096)
        return buffer.withUnsafeMutableBufferPointer { pointer in
            let start = pointer.baseAddress! + pre
            let end = pointer.baseAddress! + pointer.count - 1
            var cursor: UnsafeMutablePointer<UInt8>? = start
            guard
                lws_add_http_common_headers(
                    wsi, UInt32(response.status), response.contentType, lws_filepos_t(response.body.count), &cursor,
                    end) == 0
            else { return false }
            for (name, value) in response.headers {
                let cName = Array((name.lowercased() + ":").utf8) + [0]
                let cValue = Array(value.utf8)
                guard
                    lws_add_http_header_by_name(wsi, cName, cValue, Int32(cValue.count), &cursor, end) == 0
                else { return false }
            }
            return lws_finalize_write_http_header(wsi, start, &cursor, end) == 0
        }
    }

    /// Writes the whole body as the final part of the response.
    static func writeBody(_ wsi: OpaquePointer, _ body: [UInt8]) -> Bool {
        let pre = pv_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre + body.count)
        buffer.replaceSubrange(pre..<buffer.count, with: body)
        return buffer.withUnsafeMutableBufferPointer { pointer in
            lws_write(wsi, pointer.baseAddress! + pre, body.count, LWS_WRITE_HTTP_FINAL) >= body.count
        }
    }
}
