// Two network namespaces of the test's own, joined by a veth pair created inside them (the root namespace's
// interfaces are never touched), with `ip` from iproute2. Unique names per run; `destroy()` removes both
// namespaces, which deletes the veth pair with them.
import Foundation

/// A bridge namespace and a client namespace on one private /24, for tests that change the client's address.
struct NamespacePair {
    struct SetupError: Error, CustomStringConvertible {
        let description: String
    }

    let bridgeNamespace: String
    let clientNamespace: String
    let bridgeInterface: String
    let clientInterface: String
    let subnet: String
    var bridgeIP: String { "\(subnet).1" }
    var clientIP: String { "\(subnet).2" }
    /// Where the client moves to in `moveClient()`.
    var newClientIP: String { "\(subnet).3" }

    /// Creates both namespaces and the link. Throws a message saying what is missing (root, iproute2, netns).
    static func create() throws -> NamespacePair {
        guard getuid() == 0 else {
            throw SetupError(
                description: "this test needs root to create network namespaces (ip netns add); CI runs as root")
        }
        guard FileManager.default.isExecutableFile(atPath: ip) else {
            throw SetupError(description: "\(ip) is missing: install iproute2 (scripts/setup.sh)")
        }
        let tag = String(format: "%06x", UInt32.random(in: 0...0xFF_FFFF))
        let pair = NamespacePair(
            bridgeNamespace: "pvtest-b-\(tag)", clientNamespace: "pvtest-c-\(tag)", bridgeInterface: "pvb\(tag)",
            clientInterface: "pvc\(tag)", subnet: "10.231.\(Int.random(in: 1...254))")
        do {
            try pair.setUp()
        } catch {
            pair.destroy()
            throw error
        }
        return pair
    }

    private func setUp() throws {
        try Self.run(["netns", "add", bridgeNamespace])
        try Self.run(["netns", "add", clientNamespace])
        try Self.run([
            "link", "add", bridgeInterface, "netns", bridgeNamespace, "type", "veth", "peer", "name", clientInterface,
            "netns", clientNamespace,
        ])
        for (namespace, interface, address) in [
            (bridgeNamespace, bridgeInterface, bridgeIP), (clientNamespace, clientInterface, clientIP),
        ] {
            try Self.run(["-n", namespace, "addr", "add", "\(address)/24", "dev", interface])
            try Self.run(["-n", namespace, "link", "set", interface, "up"])
            try Self.run(["-n", namespace, "link", "set", "lo", "up"])
        }
        // Deleting the client's first address must keep the second one of the same /24 (the kernel's default
        // removes every secondary address with its primary).
        try Self.run(
            [
                "netns", "exec", clientNamespace, "sysctl", "-qw",
                "net.ipv4.conf.\(clientInterface).promote_secondaries=1",
            ])
    }

    /// The client's network changes: a new address appears, then the old one goes (netlink reports both).
    func moveClient() throws {
        try Self.run(["-n", clientNamespace, "addr", "add", "\(newClientIP)/24", "dev", clientInterface])
        try Self.run(["-n", clientNamespace, "addr", "del", "\(clientIP)/24", "dev", clientInterface])
    }

    /// Removes both namespaces (and so the veth pair). Safe to call more than once.
    func destroy() {
        for namespace in [clientNamespace, bridgeNamespace] { try? Self.run(["netns", "del", namespace]) }
    }

    /// `ip netns exec NS` + `arguments`: the command line of a process in a namespace.
    static func inNamespace(_ namespace: String, _ arguments: [String]) -> [String] {
        [ip, "netns", "exec", namespace] + arguments
    }

    /// The `polyvoice` binary of this build (next to the test bundle in `.build/<config>/`).
    static func polyvoiceBinary() -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("polyvoice").path),
            directory.path != "/"
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("polyvoice")
    }

    static let ip =
        ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }
        ?? "/usr/sbin/ip"

    /// Runs `ip arguments…` to completion; throws with its stderr when it fails.
    static func run(_ arguments: [String]) throws {
        let process = Process()
        let errors = Pipe()
        process.executableURL = URL(fileURLWithPath: ip)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SetupError(
                description: "ip \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): "
                    + String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}

/// A child process whose stdout lines are collected as they come (read on a thread of its own).
final class LineProcess: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var collected: [String] = []

    init(_ commandLine: [String], standardError: FileHandle = .standardError) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: commandLine[0])
        process.arguments = Array(commandLine.dropFirst())
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = standardError
        try process.run()
        let reader = output.fileHandleForReading
        Thread.detachNewThread { [self] in
            var pending: [UInt8] = []
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                pending.append(contentsOf: chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    lock.withLock { collected.append(line) }
                }
            }
        }
    }

    var lines: [String] { lock.withLock { collected } }
    var isRunning: Bool { process.isRunning }
    var exitStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

    /// Waits up to `timeout` for a line (from index `from` on) satisfying `predicate`; returns its index.
    func waitForLine(from: Int = 0, timeout: Duration, _ predicate: (String) -> Bool) async -> Int? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let lines = lines
            if from < lines.count, let index = lines[from...].firstIndex(where: predicate) { return index }
            if !process.isRunning, lines.count == self.lines.count { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Waits up to `timeout` for the process to exit; terminates it otherwise.
    func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        return exitStatus
    }

    /// SIGTERM, then SIGKILL after 3 s. Idempotent.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<150 where process.isRunning { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
