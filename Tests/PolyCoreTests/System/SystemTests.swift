import Foundation
import PolyCore
import Synchronization
import Testing

// Threads, locks, child processes and whole-file I/O on POSIX calls (what Foundation's Thread, NSLock,
// Process and Data(contentsOf:) did for the libraries).
@Suite struct SystemTests {
    @Test func aDetachedThreadRunsAndCarriesItsName() async {
        let name = Mutex("")
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DetachedThread.start(name: "polyvoice-name-is-cut") {
                let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                name.withLock { $0 = comm.trimmingCharacters(in: .newlines) }
                done.resume()
            }
        }
        // The kernel keeps 15 bytes of a thread's name.
        #expect(name.withLock { $0 } == "polyvoice-name-")
    }

    @Test func aPlainLockKeepsConcurrentIncrementsWhole() async {
        final class Counter: @unchecked Sendable {
            let lock = PlainLock()
            var value = 0
        }
        let counter = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<10_000 { counter.lock.withLock { counter.value += 1 } }
                }
            }
        }
        #expect(counter.value == 80_000)
    }

    @Test func aChildProcessesOutputAndErrorsAreCollectedApart() throws {
        // More than a pipe holds (64 KiB) on both streams: read one after the other, the child would stall.
        let script = "head -c 200000 /dev/zero | tr '\\0' a; head -c 100000 /dev/zero | tr '\\0' b >&2; exit 3"
        let child = try ChildProcess("sh", ["-c", script], standardOutput: .capture, standardError: .capture)
        let (output, errors) = child.collectOutput()
        #expect(child.waitForExit() == 3)
        #expect(output.count == 200_000 && output.allSatisfy { $0 == UInt8(ascii: "a") })
        #expect(errors.count == 100_000 && errors.allSatisfy { $0 == UInt8(ascii: "b") })
    }

    @Test func aChildKeepsOnlyItsStandardStreams() throws {
        // A descriptor the parent holds without O_CLOEXEC (as other libraries' sockets may be) is not inherited.
        let file = open("/dev/null", O_RDONLY)
        let leaked = dup2(file, 100)
        close(file)
        defer { close(leaked) }
        #expect(leaked == 100)
        let child = try ChildProcess(
            "sh", ["-c", "ls /proc/self/fd"], standardOutput: .capture, standardError: .discard)
        let listed = String(decoding: child.collectOutput().output, as: UTF8.self).split(separator: "\n")
        #expect(child.waitForExit() == 0)
        // 0-2 and the descriptor ls reads /proc/self/fd through.
        #expect(!listed.contains("100"))
        #expect(listed.count == 4)
    }

    @Test func aChildThatHangsIsReportedAndCanBeKilled() throws {
        let child = try ChildProcess("/bin/sleep", ["30"], standardOutput: .capture, standardError: .discard)
        #expect(child.collectOutput(within: 0.2) == nil)
        #expect(child.waitForExit(within: 0.1) == nil)
        child.send(SIGKILL)
        #expect(child.waitForExit() == 128 + SIGKILL)
    }

    @Test func aMissingProgramIsAClearError() {
        #expect(throws: ChildProcess.Failure.self) { try ChildProcess("/nonexistent/tool", []) }
        do {
            _ = try ChildProcess("no-such-tool-polyvoice", [])
            Issue.record("started a program that does not exist")
        } catch {
            #expect(error.description.contains("no-such-tool-polyvoice"))
        }
    }

    @Test func fileBytesReadPipesAndWriteFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pv-filebytes-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("data").path
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try FileBytes.write(bytes, to: path)
        #expect(try FileBytes.read(path) == bytes)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))

        let fifo = directory.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = try ChildProcess("sh", ["-c", "printf 'through a pipe' > '\(fifo)'"])
        #expect(try FileBytes.read(fifo) == Array("through a pipe".utf8))
        #expect(writer.waitForExit() == 0)
    }

    @Test func fileBytesErrorsAreTheSystemsWords() {
        #expect(throws: FileBytes.Failure(errno: ENOENT)) { try FileBytes.read("/nonexistent/polyvoice") }
        #expect(throws: FileBytes.Failure(errno: EISDIR)) { try FileBytes.write([1], to: "/tmp") }
        #expect(throws: FileBytes.Failure(errno: ENOSPC)) { try FileBytes.write([1, 2, 3], to: "/dev/full") }
        #expect(FileBytes.Failure(errno: ENOENT).reason == "No such file or directory")
    }
}
