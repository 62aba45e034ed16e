// Prometheus text exposition of the bridge's counters (GET /metrics).
import PolyNet

/// Call outcomes and media totals; ended calls' media counters are folded into the totals.
struct BridgeMetricsState: Sendable {
    var callsTotal: [CallEndReason: UInt64] = [:]
    var provisioned: UInt64 = 0
    var rejected: [Int: UInt64] = [:]
    /// Media counters of calls that have ended.
    var endedMedia = BridgeMediaStats()
    // HTTP / events-socket abuse (issue 19): refusals by reason (the error code), from the routes, the
    // HTTP server itself (oversized, late or unframed bodies, WebSocket slow readers) and the events socket.
    var rejectedByReason: [String: UInt64] = [:]
    /// Calls ended so far, whatever the outcome.
    var endedCalls: UInt64 { callsTotal.values.reduce(0, +) }

    /// Counted in the same critical section that takes the call out of the registry, so that no snapshot shows a
    /// call neither active nor ended (a reader saw `active_calls 0` with an outcome still uncounted).
    mutating func callEnded(_ reason: CallEndReason) { callsTotal[reason, default: 0] += 1 }

    /// An ended call's media counters, folded in once its session is closed.
    mutating func foldEndedMedia(_ media: BridgeMediaStats) {
        endedMedia.packetsReceived += media.packetsReceived
        endedMedia.packetsSent += media.packetsSent
        endedMedia.packetsLost += media.packetsLost
        endedMedia.concealedSeconds += media.concealedSeconds
        foldMediaDrops(media)
    }

    /// The exposition text, given the active calls' current media stats.
    func render(active: [BridgeMediaStats], activeCalls: Int) -> String {
        var received = endedMedia.packetsReceived
        var sent = endedMedia.packetsSent
        var lost = endedMedia.packetsLost
        var concealed = endedMedia.concealedSeconds
        var maxJitter = 0.0
        var sumJitter = 0.0
        for stats in active {
            received += stats.packetsReceived
            sent += stats.packetsSent
            lost += stats.packetsLost
            concealed += stats.concealedSeconds
            maxJitter = max(maxJitter, stats.jitterSeconds)
            sumJitter += stats.jitterSeconds
        }
        var lines: [String] = []
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, String)]) {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
            for (labels, value) in samples { lines.append("\(name)\(labels) \(value)") }
        }
        metric("polyvoice_bridge_active_calls", "gauge", "Calls currently provisioned.", [("", "\(activeCalls)")])
        metric(
            "polyvoice_bridge_calls_provisioned_total", "counter", "Calls provisioned.", [("", "\(provisioned)")])
        metric(
            "polyvoice_bridge_calls_total", "counter", "Calls ended, by outcome.",
            CallEndReason.allCases.map { ("{outcome=\"\($0.rawValue)\"}", "\(callsTotal[$0] ?? 0)") })
        metric(
            "polyvoice_bridge_requests_rejected_total", "counter", "Requests answered with an error, by status.",
            rejected.keys.sorted().map { ("{status=\"\($0)\"}", "\(rejected[$0] ?? 0)") })
        metric(
            "polyvoice_bridge_rtp_packets_received_total", "counter", "RTP packets received from callers.",
            [("", "\(received)")])
        metric(
            "polyvoice_bridge_rtp_packets_sent_total", "counter", "RTP packets sent to callers.", [("", "\(sent)")])
        metric(
            "polyvoice_bridge_rtp_packets_lost_total", "counter", "Caller RTP packets lost (sequence gaps).",
            [("", "\(lost)")])
        metric(
            "polyvoice_bridge_jitter_seconds", "gauge", "Interarrival jitter of active calls.",
            [
                ("{stat=\"max\"}", "\(maxJitter)"),
                ("{stat=\"mean\"}", "\(active.isEmpty ? 0 : sumJitter / Double(active.count))"),
            ])
        metric(
            "polyvoice_bridge_concealed_seconds_total", "counter", "Caller audio concealed by PLC/FEC.",
            [("", "\(concealed)")])
        // HTTP / events-socket abuse (issue 19).
        metric(
            "polyvoice_bridge_rejections_total", "counter",
            "Requests and connections refused, by reason (the error code of the answer, or of the close).",
            rejectedByReason.keys.sorted().map { ("{reason=\"\($0)\"}", "\(rejectedByReason[$0] ?? 0)") })
        return lines.joined(separator: "\n") + "\n"
    }
}

// MARK: - Dropped media (issue 19: floods on the shared media port, forged SRTP)

extension BridgeMetricsState {
    /// Ended calls' SRTP drops are kept in `endedMedia` like their other counters.
    mutating func foldMediaDrops(_ media: BridgeMediaStats) {
        endedMedia.srtpAuthFailures += media.srtpAuthFailures
        endedMedia.srtpReplayFailures += media.srtpReplayFailures
        endedMedia.srtpOtherFailures += media.srtpOtherFailures
    }

    /// What the shared media port dropped and why (nil: calls bind their own ports) and what the calls'
    /// SRTP sessions refused, as exposition text following `render`'s.
    func renderMediaDrops(active: [BridgeMediaStats], port: SharedMediaPortCounters?) -> String {
        var auth = endedMedia.srtpAuthFailures
        var replay = endedMedia.srtpReplayFailures
        var other = endedMedia.srtpOtherFailures
        for stats in active {
            auth += stats.srtpAuthFailures
            replay += stats.srtpReplayFailures
            other += stats.srtpOtherFailures
        }
        var lines: [String] = []
        func metric(_ name: String, _ help: String, _ samples: [(String, UInt64)]) {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) counter")
            for (labels, value) in samples { lines.append("\(name)\(labels) \(value)") }
        }
        if let port {
            metric(
                "polyvoice_bridge_media_port_datagrams_delivered_total",
                "Datagrams the shared media port routed to a call.", [("", port.delivered)])
            metric(
                "polyvoice_bridge_media_port_datagrams_dropped_total",
                "Datagrams the shared media port dropped, by reason and by what they looked like (RFC 7983).",
                [
                    ("{reason=\"unknown_ufrag\",kind=\"stun\"}", port.droppedUnknownUfrag),
                    ("{reason=\"malformed\",kind=\"stun\"}", port.droppedMalformed),
                    ("{reason=\"unknown_source\",kind=\"stun\"}", port.unknownSourceSTUN),
                    ("{reason=\"unknown_source\",kind=\"dtls\"}", port.unknownSourceDTLS),
                    ("{reason=\"unknown_source\",kind=\"rtp\"}", port.unknownSourceRTP),
                    ("{reason=\"unknown_source\",kind=\"rtcp\"}", port.unknownSourceRTCP),
                    ("{reason=\"unknown_source\",kind=\"other\"}", port.unknownSourceOther),
                ])
        }
        metric(
            "polyvoice_bridge_srtp_packets_dropped_total",
            "Inbound SRTP/SRTCP packets of calls that libsrtp refused, by reason.",
            [("{reason=\"auth\"}", auth), ("{reason=\"replay\"}", replay), ("{reason=\"other\"}", other)])
        return lines.joined(separator: "\n") + "\n"
    }
}

// MARK: - Event-loop lag (issue 19: the soak benchmark samples it)

extension BridgeMetricsState {
    /// How late each event loop's 20 ms frame clock ticked, as a Prometheus histogram per loop (label
    /// `loop`, in the group's order), and the largest lateness since the start.
    static func renderLoopLag(_ loops: [EventLoopLagSnapshot]) -> String {
        let name = "polyvoice_bridge_event_loop_lag_seconds"
        var lines = [
            "# HELP \(name) How late each event loop's 20 ms frame clock ticked (time work waited for the loop).",
            "# TYPE \(name) histogram",
        ]
        for (index, lag) in loops.enumerated() {
            var cumulative: UInt64 = 0
            for (bucket, bound) in EventLoopLagSnapshot.bucketBounds.enumerated() {
                cumulative += lag.bucketCounts[bucket]
                lines.append("\(name)_bucket{loop=\"\(index)\",le=\"\(bound)\"} \(cumulative)")
            }
            lines.append("\(name)_bucket{loop=\"\(index)\",le=\"+Inf\"} \(lag.count)")
            lines.append("\(name)_sum{loop=\"\(index)\"} \(lag.sumSeconds)")
            lines.append("\(name)_count{loop=\"\(index)\"} \(lag.count)")
        }
        lines.append("# HELP \(name)_max The largest frame-clock lateness of each event loop since the start.")
        lines.append("# TYPE \(name)_max gauge")
        for (index, lag) in loops.enumerated() { lines.append("\(name)_max{loop=\"\(index)\"} \(lag.maxSeconds)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
