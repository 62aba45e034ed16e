// Seeded network profiles that generate arrival traces (same profile and seed, same trace).
import PolyCore

/// Named network conditions for trace generation.
public enum TraceProfile: String, CaseIterable, Sendable {
    /// 40 ms one-way, 0–2 ms jitter, no loss.
    case clean
    /// 10–40 ms jitter, 1% random loss.
    case wifi
    /// 20–80 ms jitter with occasional 200 ms delay spikes, 2% random loss.
    case lte
    /// Gilbert–Elliott loss, 5% on average in bursts of 30–60 ms, light jitter.
    case bursty
    /// 10% random loss, 0–50 ms jitter, reordering.
    case congested
    /// Light jitter and a 2 s outage in the middle.
    case outage
    /// Queueing delay wandering as an AR(1) process with a time constant of seconds (`NetworkMechanisms.wander`).
    case wander
    /// Delay steps up and down as the route changes every few seconds.
    case route
    /// Wi-Fi background scans: 50–200 ms stalls every few seconds, then burst delivery.
    case wifiscan
    /// Bufferbloat: delay ramps to 200–400 ms while an upload runs, then drains.
    case bufferbloat
    /// Cellular handovers: a short break, then a burst (or loss), and a new cell's delay.
    case handover
    /// Wander and route changes with Gilbert–Elliott burst loss and random loss.
    case mixed
    /// Per-packet normal queueing delay (σ 15–35 ms) from 0–2 s in: packets overtake one another.
    case reorder

    /// The families generated from a network mechanism (beyond the original six i.i.d. profiles).
    public static let mechanisms: [TraceProfile] = [
        .wander, .route, .wifiscan, .bufferbloat, .handover, .mixed, .reorder,
    ]

    /// A trace of `packets` 20 ms packets.
    public func generate(packets: Int, seed: UInt64) -> ArrivalTrace {
        var random = SeededRandom(seed: seed ^ UInt64(truncatingIfNeeded: rawValue.hashValueStable))
        switch self {
        case .wander: return NetworkMechanisms.trace(NetworkMechanisms.wander(packets: packets, random: &random))
        case .route: return NetworkMechanisms.trace(NetworkMechanisms.route(packets: packets, random: &random))
        case .wifiscan: return NetworkMechanisms.trace(NetworkMechanisms.wifiScan(packets: packets, random: &random))
        case .bufferbloat:
            return NetworkMechanisms.trace(NetworkMechanisms.bufferbloat(packets: packets, random: &random))
        case .handover: return NetworkMechanisms.trace(NetworkMechanisms.handover(packets: packets, random: &random))
        case .mixed: return NetworkMechanisms.trace(NetworkMechanisms.mixed(packets: packets, random: &random))
        case .reorder: return NetworkMechanisms.trace(NetworkMechanisms.reorder(packets: packets, random: &random))
        default: break
        }
        let base = 40.0
        var entries: [ArrivalTrace.Entry] = []
        var spikeUntil = -1.0
        var burstLeft = 0
        for k in 0..<packets {
            let send = Double(k) * 20
            var delay = base
            var lost = false
            switch self {
            case .clean:
                delay += random.unit() * 2
            case .wifi:
                delay += 10 + random.unit() * 30
                lost = random.unit() < 0.01
            case .lte:
                delay += 20 + random.unit() * 60
                if send >= spikeUntil, random.unit() < 0.004 { spikeUntil = send + 200 }
                // During a spike, packets queue and leave together when it ends.
                if send < spikeUntil { delay = max(delay, spikeUntil - send + base + 20) }
                lost = random.unit() < 0.02
            case .bursty:
                delay += random.unit() * 10
                if burstLeft == 0, random.unit() < 0.021 { burstLeft = random.unit() < 0.5 ? 2 : 3 }
                if burstLeft > 0 {
                    lost = true
                    burstLeft -= 1
                }
            case .congested:
                delay += random.unit() * 50
                if random.unit() < 0.03 { delay += 25 }  // overtaken by the next packet
                lost = random.unit() < 0.10
            case .outage:
                delay += random.unit() * 10
                let middle = Double(packets) * 10
                lost = send >= middle - 1000 && send < middle + 1000
            case .wander, .route, .wifiscan, .bufferbloat, .handover, .mixed, .reorder:
                break  // generated above
            }
            entries.append(.init(sequence: k, sendMs: send, arrivalMs: lost ? nil : send + delay))
        }
        return ArrivalTrace(entries: entries)
    }
}

extension String {
    /// FNV-1a, stable across runs (Swift's `hashValue` is randomised per process).
    fileprivate var hashValueStable: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }
}
