// Trace models built from a network mechanism each (not fitted to any measurement): queueing that wanders, route
// changes, Wi-Fi background scans, bufferbloat under an upload, cellular handovers, a mixture with loss, and
// per-packet queueing that reorders.
//
// Every model draws its parameters per seed (base delay, time constants, depths), so the seeds of one family are
// different networks of the same kind, not one network with different noise.
import Glibc
import PolyCore

/// The per-family generators behind `TraceProfile`'s mechanism families.
enum NetworkMechanisms {
    /// One-way delay (ms) per packet, nil = lost, and whether the path keeps packets in order (a FIFO queue).
    struct Path {
        var delays: [Double?]
        var fifo: Bool
    }

    static func trace(_ path: Path) -> ArrivalTrace {
        var entries: [ArrivalTrace.Entry] = []
        var lastArrival = -Double.infinity
        for (k, delay) in path.delays.enumerated() {
            let send = Double(k) * 20
            guard let delay else {
                entries.append(.init(sequence: k, sendMs: send, arrivalMs: nil))
                continue
            }
            var arrival = send + delay
            // A FIFO queue never lets a packet overtake the one before it (back to back, 0.2 ms apart).
            if path.fifo { arrival = max(arrival, lastArrival + 0.2) }
            lastArrival = arrival
            entries.append(.init(sequence: k, sendMs: send, arrivalMs: arrival))
        }
        return ArrivalTrace(entries: entries)
    }

    /// Queueing delay as an AR(1) process: time constant 1.5–5 s, standard deviation 15–35 ms, plus 0–4 ms of
    /// per-packet jitter and 1 % random loss (a shared link whose load changes over seconds).
    static func wander(packets: Int, random: inout SeededRandom) -> Path {
        let base = 30 + random.unit() * 30
        let tau = 1.5 + random.unit() * 3.5
        let sigma = 15 + random.unit() * 20
        var ar = AR1(tauSeconds: tau, sigma: sigma, random: &random)
        let delays: [Double?] = (0..<packets).map { _ in
            let queue = max(0, 1.5 * sigma + ar.next(&random))
            let delay = base + queue + random.unit() * 4
            return random.unit() < 0.01 ? nil : delay
        }
        return Path(delays: delays, fifo: true)
    }

    /// Route changes: every 2–5 s the path switches to one 0–100 ms slower than the fastest; packets on a new
    /// faster route overtake those still on the old one. 0–6 ms jitter, 0.5 % loss.
    static func route(packets: Int, random: inout SeededRandom) -> Path {
        let base = 30 + random.unit() * 30
        var extra = random.unit() * 100
        var nextChange = 2000 + random.unit() * 3000
        let delays: [Double?] = (0..<packets).map { k in
            let send = Double(k) * 20
            if send >= nextChange {
                extra = random.unit() * 100
                nextChange = send + 2000 + random.unit() * 3000
            }
            let delay = base + extra + random.unit() * 6
            return random.unit() < 0.005 ? nil : delay
        }
        return Path(delays: delays, fifo: false)
    }

    /// Wi-Fi background scanning: every 2–5 s (period per seed, ±20 % per scan) the station leaves the channel for
    /// 50–200 ms; what was sent meanwhile waits in the access point and arrives in one burst after it. 2–12 ms of
    /// contention jitter, 0.5 % loss.
    static func wifiScan(packets: Int, random: inout SeededRandom) -> Path {
        let base = 20 + random.unit() * 20
        let jitter = 2 + random.unit() * 10
        let period = 2000 + random.unit() * 3000
        var scanStart = random.unit() * period
        var scanLength = 50 + random.unit() * 150
        let delays: [Double?] = (0..<packets).map { k in
            let send = Double(k) * 20
            while send >= scanStart + scanLength {
                scanStart += period * (0.8 + random.unit() * 0.4)
                scanLength = 50 + random.unit() * 150
            }
            var delay = base + random.unit() * jitter
            if send >= scanStart { delay = max(delay, scanStart + scanLength - send + base) }
            return random.unit() < 0.005 ? nil : delay
        }
        return Path(delays: delays, fifo: true)
    }

    /// Bufferbloat: an upload shares the uplink's deep FIFO. While it runs (3–5 s, starting 1–3 s in, then again
    /// 2–4 s after it ends) the queueing delay ramps up to 200–400 ms over 1.5–3 s and stays there (±10 ms, 1 % tail
    /// drops); when it stops the queue drains at 0.8 ms per ms. 1–5 ms jitter, 0.3 % background loss.
    static func bufferbloat(packets: Int, random: inout SeededRandom) -> Path {
        let base = 25 + random.unit() * 25
        var uploadStart = 1000 + random.unit() * 2000
        var uploadEnd = uploadStart + 3000 + random.unit() * 2000
        var peak = 200 + random.unit() * 200
        var ramp = 1500 + random.unit() * 1500
        var queue = 0.0
        let delays: [Double?] = (0..<packets).map { k in
            let send = Double(k) * 20
            if send >= uploadEnd, queue <= 0 {
                uploadStart = send + 2000 + random.unit() * 2000
                uploadEnd = uploadStart + 3000 + random.unit() * 2000
                peak = 200 + random.unit() * 200
                ramp = 1500 + random.unit() * 1500
            }
            let uploading = send >= uploadStart && send < uploadEnd
            if uploading {
                queue = min(peak, queue + peak * 20 / ramp) + (random.unit() - 0.5) * 4
                queue = min(max(queue, 0), peak + 10)
            } else {
                queue = max(0, queue - 0.8 * 20)
            }
            let full = uploading && queue >= peak - 10
            let lost = random.unit() < (full ? 0.01 : 0.003)
            return lost ? nil : base + queue + 1 + random.unit() * 4
        }
        return Path(delays: delays, fifo: true)
    }

    /// Cellular handovers every 3–7 s: the radio link breaks for 80–300 ms; in 60 % of them the old cell forwards
    /// what it held, which arrives in a burst when the new link is up, otherwise it is lost. The new cell's delay
    /// differs by −15…+25 ms. 0–15 ms scheduling jitter, 0.5 % loss.
    static func handover(packets: Int, random: inout SeededRandom) -> Path {
        var base = 40 + random.unit() * 30
        var nextHandover = 1500 + random.unit() * 3000
        var breakEnd = -1.0
        var forwarded = true
        let jitter = 5 + random.unit() * 10
        let delays: [Double?] = (0..<packets).map { k in
            let send = Double(k) * 20
            if send >= nextHandover {
                breakEnd = send + 80 + random.unit() * 220
                forwarded = random.unit() < 0.6
                base = max(25, base - 15 + random.unit() * 40)
                nextHandover = send + 3000 + random.unit() * 4000
            }
            var delay = base + random.unit() * jitter
            if send < breakEnd {
                guard forwarded else { return nil }
                delay = max(delay, breakEnd - send + base)
            }
            return random.unit() < 0.005 ? nil : delay
        }
        return Path(delays: delays, fifo: true)
    }

    /// A mixture: AR(1) wander (2–4 s, 10–25 ms) on top of route changes (0–60 ms every 3–6 s), Gilbert–Elliott
    /// burst loss (≈ 3 %, bursts of 3 on average) and 1 % random loss.
    static func mixed(packets: Int, random: inout SeededRandom) -> Path {
        let base = 30 + random.unit() * 20
        let sigma = 10 + random.unit() * 15
        var ar = AR1(tauSeconds: 2 + random.unit() * 2, sigma: sigma, random: &random)
        var extra = random.unit() * 60
        var nextChange = 3000 + random.unit() * 3000
        var bad = false
        let delays: [Double?] = (0..<packets).map { k in
            let send = Double(k) * 20
            if send >= nextChange {
                extra = random.unit() * 60
                nextChange = send + 3000 + random.unit() * 3000
            }
            bad = bad ? random.unit() >= 1.0 / 3 : random.unit() < 0.01
            let delay = base + extra + max(0, 1.5 * sigma + ar.next(&random)) + random.unit() * 4
            return bad || random.unit() < 0.01 ? nil : delay
        }
        return Path(delays: delays, fifo: false)
    }

    /// Reordering: from 0–2 s in (when the cross traffic starts) each packet's queueing delay is drawn on its own,
    /// normal with mean 30–50 ms and σ 15–35 ms, cut at 0, as through netem's `delay` with a normal jitter or a
    /// load-balanced multipath; so packets overtake one another. Before that 0–2 ms of jitter; 0.5 % loss.
    static func reorder(packets: Int, random: inout SeededRandom) -> Path {
        let base = 20 + random.unit() * 40
        let onset = random.unit() * 2000
        let mean = 30 + random.unit() * 20
        let sigma = 15 + random.unit() * 20
        let delays: [Double?] = (0..<packets).map { k in
            let crossTraffic = Double(k) * 20 >= onset
            let queue = crossTraffic ? max(0, random.normal(mean: mean, standardDeviation: sigma)) : random.unit() * 2
            return random.unit() < 0.005 ? nil : base + queue
        }
        return Path(delays: delays, fifo: false)
    }
}

/// A first-order autoregressive process sampled every 20 ms: stationary, zero mean, given standard deviation.
private struct AR1 {
    let a: Double
    let sigma: Double
    var x: Double

    init(tauSeconds: Double, sigma: Double, random: inout SeededRandom) {
        a = exp(-0.02 / tauSeconds)
        self.sigma = sigma
        x = random.normal(standardDeviation: sigma)
    }

    mutating func next(_ random: inout SeededRandom) -> Double {
        x = a * x + (1 - a * a).squareRoot() * random.normal(standardDeviation: sigma)
        return x
    }
}
