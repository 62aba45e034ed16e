import CLinux
import Foundation
import Testing

@testable import PolyNet

@Suite struct LocalAddressesTests {
    @Test func loopbackOnlyWhenAsked() throws {
        let all = try LocalAddresses.enumerate(.init(includeLoopback: true))
        #expect(all.contains { $0.ip == .loopbackV4 && $0.interfaceName == "lo" && $0.prefixLength == 8 })
        let usual = try LocalAddresses.enumerate()
        #expect(!usual.contains { $0.ip.isLoopback })
        #expect(!usual.contains { $0.ip.family == .v6 && $0.ip.isLinkLocal })
        let v4Only = try LocalAddresses.enumerate(.init(includeLoopback: true, families: [.v4]))
        #expect(v4Only.allSatisfy { $0.ip.family == .v4 } && !v4Only.isEmpty)
    }
}

/// Runs `ip` with arguments; throws on a non-zero exit.
private func ip(_ arguments: String...) throws {
    let process = Process()
    let path = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
        FileManager.default.fileExists(atPath: $0)
    }
    process.executableURL = URL(fileURLWithPath: try #require(path, "the ip tool (iproute2) is needed"))
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "ip \(arguments.joined(separator: " ")) failed")
}

/// Runs `body` with this thread inside the named network namespace, then moves the thread back.
private func inNamespace<T>(_ name: String, _ body: () throws -> T) throws -> T {
    let cloneNewNet: Int32 = 0x4000_0000  // CLONE_NEWNET
    let original = open("/proc/thread-self/ns/net", O_RDONLY)
    let target = open("/run/netns/\(name)", O_RDONLY)
    defer {
        close(original)
        close(target)
    }
    try #require(original >= 0 && target >= 0)
    try #require(pv_setns(target, cloneNewNet) == 0, "setns into \(name): errno \(errno)")
    defer { precondition(pv_setns(original, cloneNewNet) == 0, "cannot return to the original namespace") }
    return try body()
}

/// Needs root (network namespaces); fails rather than skips without it.
@Suite(.serialized) struct NetworkMonitorTests {
    @Test func reportsAddressesAddedAndRemovedInsideANamespace() throws {
        try #require(geteuid() == 0, "this test creates a network namespace and needs root")
        let name = "pvtest-\(getpid())"
        try ip("netns", "add", name)
        defer { try? ip("netns", "del", name) }
        try ip("netns", "exec", name, "ip", "link", "add", "pv0", "type", "veth", "peer", "name", "pv1")

        let loop = try EventLoop()
        defer { loop.shutdown() }
        let changes = Locked<[NetworkChange]>([])
        let monitor = try inNamespace(name) {
            try NetworkMonitor(loop: loop) { change in changes.with { $0.append(change) } }
        }
        defer { monitor.stop() }
        let v4 = IPAddress("192.0.2.10")!
        let v6 = IPAddress("2001:db8::10")!
        func added(_ ip: IPAddress) -> Bool {
            changes.current.contains { if case .addressAdded(let a) = $0 { a.ip == ip } else { false } }
        }
        func removed(_ ip: IPAddress) -> Bool {
            changes.current.contains { if case .addressRemoved(let a) = $0 { a.ip == ip } else { false } }
        }

        try ip("netns", "exec", name, "ip", "addr", "add", "192.0.2.10/24", "dev", "pv0")
        try ip("netns", "exec", name, "ip", "-6", "addr", "add", "2001:db8::10/64", "dev", "pv0", "nodad")
        try ip("netns", "exec", name, "ip", "link", "set", "pv0", "up")
        #expect(waitUntil { added(v4) && added(v6) })
        #expect(
            changes.current.contains {
                if case .addressAdded(let a) = $0 {
                    a.ip == v4 && a.prefixLength == 24 && a.interfaceName == "pv0"
                } else {
                    false
                }
            })
        #expect(
            waitUntil { changes.current.contains { if case .linkChanged(_, "pv0", true) = $0 { true } else { false } } }
        )
        #expect(!removed(v4))

        try ip("netns", "exec", name, "ip", "addr", "del", "192.0.2.10/24", "dev", "pv0")
        #expect(waitUntil { removed(v4) })
        try ip("netns", "exec", name, "ip", "-6", "addr", "del", "2001:db8::10/64", "dev", "pv0")
        #expect(waitUntil { removed(v6) })
        // Nothing from the host's own namespace leaked in: only pv0/pv1 (and lo) changed.
        #expect(
            changes.current.allSatisfy { change in
                switch change {
                case .addressAdded(let a), .addressRemoved(let a): a.ip == v4 || a.ip == v6 || a.ip.isLinkLocal
                default: true
                }
            })
    }
}
