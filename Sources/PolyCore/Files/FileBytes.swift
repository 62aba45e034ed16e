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
        if let code = bytes.withUnsafeBytes({ writeAll($0, to: descriptor).error }) {
            close(descriptor)
            throw Failure(errno: code)
        }
        guard close(descriptor) == 0 else { throw Failure(errno: errno) }
    }

    /// Writes all of `bytes` to `descriptor`, retrying short and interrupted writes; how many were written and,
    /// if it stopped short, why (errno; a write that took nothing counts as ENOSPC). Allocates nothing.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> (written: Int, error: Int32?)
    {
        var done = 0
        while done < bytes.count {
            let result = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return (done, result == 0 ? ENOSPC : errno) }
            done += result
        }
        return (done, nil)
    }
}
