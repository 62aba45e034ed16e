// Socket system-call failures as typed errors carrying errno and its text.
import CLinux
import Glibc

/// A failed socket or event-loop system call.
public struct SocketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call that failed (`bind`, `sendto`, …).
    public var operation: String
    /// The `errno` value.
    public var code: Int32

    public init(_ operation: String, code: Int32 = errno) {
        self.operation = operation
        self.code = code
    }

    /// `strerror` text for `code`.
    public var message: String { String(cString: strerror(code)) }

    public var description: String { "\(operation): \(message) (errno \(code))" }
}
