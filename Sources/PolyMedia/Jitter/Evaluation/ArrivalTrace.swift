// Packet arrival traces for trace-driven evaluation: CSV `seq,send_ms,arrival_ms` (empty arrival = lost).

/// Why a trace file could not be read.
public struct ArrivalTraceError: Error, Equatable, CustomStringConvertible {
    public let line: Int
    public let problem: String
    public var description: String { "trace line \(line): \(problem)" }
}

/// When each packet of a stream was sent and arrived (nil = lost); packets are 20 ms apart in media time.
public struct ArrivalTrace: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var sequence: Int
        public var sendMs: Double
        public var arrivalMs: Double?

        public init(sequence: Int, sendMs: Double, arrivalMs: Double?) {
            self.sequence = sequence
            self.sendMs = sendMs
            self.arrivalMs = arrivalMs
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// Parses CSV text; a first line starting with `seq` is a header.
    public init(csv: String) throws(ArrivalTraceError) {
        var entries: [Entry] = []
        for (number, rawLine) in csv.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || (number == 0 && line.hasPrefix("seq")) { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingWhitespace()
            }
            guard fields.count == 3, let sequence = Int(fields[0]), let send = Double(fields[1]) else {
                throw ArrivalTraceError(line: number + 1, problem: "expected seq,send_ms,arrival_ms")
            }
            var arrival: Double?
            if !fields[2].isEmpty {
                guard let value = Double(fields[2]) else {
                    throw ArrivalTraceError(line: number + 1, problem: "arrival_ms '\(fields[2])' is not a number")
                }
                arrival = value
            }
            entries.append(Entry(sequence: sequence, sendMs: send, arrivalMs: arrival))
        }
        self.entries = entries
    }

    /// The trace as CSV with a header line.
    public var csv: String {
        var text = "seq,send_ms,arrival_ms\n"
        for entry in entries {
            let arrival = entry.arrivalMs.map { String(cFormat: "%.3f", $0) } ?? ""
            text += "\(entry.sequence),\(String(cFormat: "%.3f", entry.sendMs)),\(arrival)\n"
        }
        return text
    }

    /// Fraction of packets lost.
    public var lossRate: Double {
        entries.isEmpty ? 0 : Double(entries.filter { $0.arrivalMs == nil }.count) / Double(entries.count)
    }
}
