// Standard output and error as plain file descriptors (Foundation's FileHandle is not in FoundationEssentials).
import Glibc

/// One of the process's standard streams; `write` retries short and interrupted writes, as FileHandle did.
public enum StandardStream: Sendable {
    case output, error

    public func write(_ text: String) {
        let descriptor = self == .output ? STDOUT_FILENO : STDERR_FILENO
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }  // a closed pipe or a full disk: the rest is dropped
            bytes = bytes.dropFirst(written)
        }
    }
}
