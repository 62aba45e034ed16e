import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal blocking WebSocket client for one test: handshake, then read until the server's close frame.
/// (EventsSocket always sends its auth frame first, so it cannot play a silent client.)
final class RawWebSocket {
    private let fd: Int32

    struct Failure: Error {}

    init(port: Int, path: String) throws {
        do { fd = try RawHTTP.connect(port: port) } catch { throw Failure() }
        let bytes = RawHTTP.webSocketUpgrade(path: path, port: port)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw Failure() }
    }

    deinit { close(fd) }

    /// Reads the handshake response and frames until a close frame; its code (nil on timeout or EOF).
    func readCloseCode() -> Int? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return nil }
            received += buffer[0..<count]
            guard let end = headerEnd(received) else { continue }
            var frames = Array(received[end...])
            while frames.count >= 2 {
                let opcode = frames[0] & 0x0F
                let length = Int(frames[1] & 0x7F)
                guard length < 126, frames.count >= 2 + length else { break }
                if opcode == 0x8 { return length >= 2 ? Int(frames[2]) << 8 | Int(frames[3]) : 1005 }
                frames.removeFirst(2 + length)
            }
        }
    }

    private func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index..<index + 4].elementsEqual([13, 10, 13, 10]) {
            return index + 4
        }
        return nil
    }
}
