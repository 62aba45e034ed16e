// Running a helper program (doctor's probes, test tools, coturn) through posix_spawn: Foundation's Process
// without Foundation (the libraries import only FoundationEssentials: docs/MEMORY.md).
import CLinux
import Glibc

/// A started child process. Captured streams are read with `collectOutput()`; the pipes close on deinit.
public final class ChildProcess: @unchecked Sendable {
    /// What the child's standard output or error is connected to.
    public enum Stream: Sendable { case inherit, discard, capture }

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public let id: pid_t
    private var capturedOutput: Int32?
    private var capturedErrors: Int32?
    // Written once by the waiting thread; the class is used from one thread at a time.
    private var exitStatus: Int32?

    /// Starts `executable` (a path, or a name looked up in PATH) with `arguments`, the parent's environment
    /// and an empty signal mask (a test runner may block signals its children should not).
    public init(
        _ executable: String, _ arguments: [String], standardOutput: Stream = .inherit,
        standardError: Stream = .inherit
    ) throws(Failure) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipes: [(read: Int32, write: Int32)?] = []
        for (stream, target) in [(standardOutput, STDOUT_FILENO), (standardError, STDERR_FILENO)] {
            switch stream {
            case .inherit:
                pipes.append(nil)
            case .discard:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
                pipes.append(nil)
            case .capture:
                var ends: [Int32] = [-1, -1]
                guard pv_pipe_cloexec(&ends) == 0 else {
                    throw Failure(description: "pipe: \(String(cString: strerror(errno)))")
                }
                posix_spawn_file_actions_adddup2(&actions, ends[1], target)
                pipes.append((ends[0], ends[1]))
            }
        }
        pv_spawn_close_from(&actions, 3)  // after the dup2s onto 1 and 2, which it must not undo
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child = pid_t()
        let result =
            executable.contains("/")
            ? posix_spawn(&child, executable, &actions, &attributes, argv, pv_environment())
            : posix_spawnp(&child, executable, &actions, &attributes, argv, pv_environment())
        for ends in pipes.compactMap({ $0 }) { close(ends.write) }
        guard result == 0 else {
            for ends in pipes.compactMap({ $0 }) { close(ends.read) }
            throw Failure(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        id = child
        capturedOutput = pipes[0]?.read
        capturedErrors = pipes[1]?.read
    }

    deinit {
        for descriptor in [capturedOutput, capturedErrors].compactMap({ $0 }) { close(descriptor) }
    }

    /// Everything the child writes to its captured streams until it closes them, read from both at once so that
    /// neither pipe fills up and stalls it.
    public func collectOutput() -> (output: [UInt8], errors: [UInt8]) {
        collect(deadline: nil)!
    }

    /// The same, or nil if the streams are still open after `seconds`.
    public func collectOutput(within seconds: Double) -> (output: [UInt8], errors: [UInt8])? {
        collect(deadline: Instant.now() + .nanoseconds(Int64(seconds * 1e9)))
    }

    private func collect(deadline: Instant?) -> (output: [UInt8], errors: [UInt8])? {
        var collected: [[UInt8]] = [[], []]
        var open = [capturedOutput ?? -1, capturedErrors ?? -1]
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while open.contains(where: { $0 >= 0 }) {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline.nanoseconds - Instant.now().nanoseconds
                guard left > 0 else { return nil }
                timeout = Int32(min(left / 1_000_000 + 1, Int64(Int32.max)))
            }
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), timeout) >= 0 || errno == EINTR else { break }
            for index in polled.indices where polled[index].fd >= 0 && polled[index].revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(polled[index].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected[index] += chunk[..<count]
                } else if count == 0 || errno != EINTR {
                    open[index] = -1  // end of stream (or a read error): stop polling it
                }
            }
        }
        return (collected[0], collected[1])
    }

    /// Waits for the child to exit: its exit status, or 128 + the signal that ended it.
    @discardableResult
    public func waitForExit() -> Int32 {
        while exitStatus == nil {
            var status: Int32 = 0
            if waitpid(id, &status, 0) == id { exitStatus = Self.decode(status) } else if errno != EINTR { return -1 }
        }
        return exitStatus!
    }

    /// The exit status if the child exits within `seconds` (polled every 10 ms), else nil (still running).
    public func waitForExit(within seconds: Double) -> Int32? {
        var waited = 0.0
        while exitStatus == nil {
            var status: Int32 = 0
            if waitpid(id, &status, WNOHANG) == id {
                exitStatus = Self.decode(status)
            } else if waited >= seconds {
                return nil
            } else {
                DetachedThread.sleep(seconds: 0.01)
                waited += 0.01
            }
        }
        return exitStatus
    }

    /// Sends `signal` (SIGTERM, SIGKILL, …) unless the child has already been waited for.
    public func send(_ signal: Int32) {
        if exitStatus == nil { kill(id, signal) }
    }

    private static func decode(_ status: Int32) -> Int32 {
        status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
