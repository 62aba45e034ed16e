// Whole-file reads and writes through POSIX calls: they take pipes (`--input -`), and their errors are the
// system's own words ("No such file or directory"), where FoundationEssentials' errors have no readable text.
import Glibc

public enum FileBytes {
    /// Why a read or write failed, as strerror(3) says it.
    public struct Failure: Error, Sendable, Equatable {
        public let reason: String
        public init(errno code: Int32) { reason = String(cString: strerror(code)) }
    }

    /// Every byte of the file or stream at `path`, to its end.
    public static func read(_ path: String) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(errno: errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(errno: errno)
            }
            bytes += chunk[..<count]
        }
    }

    /// Replaces the file at `path` with `bytes` (created with mode 0644 less the umask).
    public static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(errno: errno) }
        var remaining = bytes[...]
        while !remaining.isEmpty {
            let count = remaining.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let failure = Failure(errno: errno)
                close(descriptor)
                throw failure
            }
            remaining = remaining.dropFirst(count)
        }
        guard close(descriptor) == 0 else { throw Failure(errno: errno) }
    }
}
