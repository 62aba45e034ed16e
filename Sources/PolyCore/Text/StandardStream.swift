// Standard output and error as plain file descriptors (Foundation's FileHandle is not in FoundationEssentials).
import Glibc

/// One of the process's standard streams; `write` retries short and interrupted writes, as FileHandle did.
public enum StandardStream: Sendable {
    case output, error

    public func write(_ text: String) {
        var text = text
        // A closed pipe or a full disk: the rest is dropped.
        text.withUTF8 {
            _ = FileBytes.writeAll(UnsafeRawBufferPointer($0), to: self == .output ? STDOUT_FILENO : STDERR_FILENO)
        }
    }
}
