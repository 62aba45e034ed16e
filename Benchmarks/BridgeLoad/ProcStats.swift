// Readers of /proc: CPU time of a process and of its busiest thread, kernel UDP drops of its sockets, its
// memory, descriptors and threads, and how busy the whole machine is (other processes compete for the same 2 cores).
import Foundation

/// CPU ticks (USER_HZ) of one process: total and per thread; and how long its threads waited for a CPU.
struct ProcessCPU {
    var total: Double
    var threads: [Int: Double]
    /// Nanoseconds each thread spent runnable but waiting on a run queue (`/proc/PID/task/TID/schedstat`).
    var waits: [Int: Double] = [:]

    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// Reads `/proc/PID/stat` and every `/proc/PID/task/TID/stat`.
    static func read(pid: Int32) -> ProcessCPU {
        var threads: [Int: Double] = [:]
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var waits: [Int: Double] = [:]
        for task in tasks {
            guard let tid = Int(task) else { continue }
            if let ticks = ticks(of: "/proc/\(pid)/task/\(task)/stat") { threads[tid] = ticks }
            if let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8) {
                let fields = text.split(separator: " ")
                if fields.count >= 2, let wait = Double(fields[1]) { waits[tid] = wait }
            }
        }
        return ProcessCPU(total: ticks(of: "/proc/\(pid)/stat") ?? 0, threads: threads, waits: waits)
    }

    /// Run-queue waiting since `earlier` of the thread that used the most CPU, in seconds: a loop thread
    /// that waits about as long as it runs is starved by other processes, not short of work capacity.
    func busiestThreadWait(since earlier: ProcessCPU) -> Double {
        guard
            let busiest = threads.max(by: { a, b in
                a.value - (earlier.threads[a.key] ?? 0) < b.value - (earlier.threads[b.key] ?? 0)
            })?.key
        else { return 0 }
        return ((waits[busiest] ?? 0) - (earlier.waits[busiest] ?? 0)) / 1e9
    }

    /// utime + stime (fields 14 and 15; the command name in parentheses may hold spaces).
    private static func ticks(of path: String) -> Double? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return user + system
    }

    /// Seconds of CPU since `earlier`, and of the thread that used the most.
    func since(_ earlier: ProcessCPU) -> (total: Double, busiestThread: Double) {
        let busiest = threads.map { tid, ticks in ticks - (earlier.threads[tid] ?? 0) }.max() ?? 0
        return ((total - earlier.total) / Self.ticksPerSecond, busiest / Self.ticksPerSecond)
    }
}

/// Kernel receive drops (the `drops` column of /proc/net/udp) of each of a process's UDP sockets, by inode:
/// sockets come and go as calls churn, so differences are taken per socket (see `since`).
struct UDPDrops {
    var bySocket: [UInt64: UInt64] = [:]

    static func read(pid: Int32) -> UDPDrops {
        let inodes = socketInodes(pid: pid)
        guard let table = try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8) else { return UDPDrops() }
        var drops = UDPDrops()
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl local rem st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops
            guard fields.count >= 13, let inode = UInt64(fields[9]), inodes.contains(inode) else { continue }
            drops.bySocket[inode] = UInt64(fields[12]) ?? 0
        }
        return drops
    }

    /// Drops since `earlier` on the sockets open now (a new socket's count from zero). Drops of a socket
    /// closed in between after `earlier` are not seen.
    func since(_ earlier: UDPDrops) -> UInt64 {
        bySocket.reduce(0) { sum, socket in sum + (socket.value - min(socket.value, earlier.bySocket[socket.key] ?? 0))
        }
    }

    private static func socketInodes(pid: Int32) -> Set<UInt64> {
        let directory = "/proc/\(pid)/fd"
        var inodes = Set<UInt64>()
        for fd in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(fd)"),
                target.hasPrefix("socket:["), let inode = UInt64(target.dropFirst(8).dropLast())
            else { continue }
            inodes.insert(inode)
        }
        return inodes
    }
}

/// A process's resident memory, open descriptors and threads (/proc/PID/status and /proc/PID/fd).
struct ProcessResources {
    var residentBytes: Double = 0
    var descriptors = 0
    var threads = 0

    static func read(pid: Int32) -> ProcessResources {
        var resources = ProcessResources()
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) {
            for line in status.split(separator: "\n") {
                let fields = line.split(whereSeparator: \.isWhitespace)
                guard fields.count >= 2 else { continue }
                if fields[0] == "VmRSS:" { resources.residentBytes = (Double(fields[1]) ?? 0) * 1024 }
                if fields[0] == "Threads:" { resources.threads = Int(fields[1]) ?? 0 }
            }
        }
        resources.descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count ?? 0
        return resources
    }
}

/// Whole-machine CPU use from /proc/stat (jiffies), to show how much other processes took.
struct MachineCPU {
    var busy: Double
    var total: Double

    static func read() -> MachineCPU {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first
        else { return MachineCPU(busy: 0, total: 0) }
        let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard values.count >= 5 else { return MachineCPU(busy: 0, total: 0) }
        let idle = values[3] + values[4]
        let total = values.reduce(0, +)
        return MachineCPU(busy: total - idle, total: total)
    }

    /// Busy cores (0...core count) since `earlier`.
    func busyCores(since earlier: MachineCPU) -> Double {
        let total = total - earlier.total
        guard total > 0 else { return 0 }
        return (busy - earlier.busy) / total * Double(ProcessInfo.processInfo.activeProcessorCount)
    }
}

/// The 1-minute load average.
func loadAverage() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return 0 }
    return Double(text.split(separator: " ").first ?? "") ?? 0
}
