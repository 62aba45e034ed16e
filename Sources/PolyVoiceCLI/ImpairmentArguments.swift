// The network-impairment options shared by `impair` and `loopback`: --loss, --burst, --delay, --jitter.
import PolyNet

extension Arguments {
    /// Loss (uniform, or Gilbert–Elliott with `--burst`), delay and jitter, each in ms up to `maximumMilliseconds`.
    func linkImpairment(maximumMilliseconds: Double) throws -> LinkImpairment {
        var impairment = LinkImpairment()
        let loss = (try double("loss", in: 0...100) ?? 0) / 100
        if let burst = try double("burst", in: 20...maximumMilliseconds) {
            guard loss > 0, loss < 1 else { throw UsageError("--burst needs --loss between 0 and 100 (exclusive)") }
            // Bursts are counted in 20 ms packets.
            impairment.loss = .gilbertElliott(GilbertElliott(meanLoss: loss, meanBurstLength: burst / 20))
        } else if loss > 0 {
            impairment.loss = .uniform(loss)
        }
        impairment.delay = try milliseconds("delay", maximum: maximumMilliseconds)
        impairment.jitter = try milliseconds("jitter", maximum: maximumMilliseconds)
        return impairment
    }

    /// `call`'s --loss, --burst, --delay, --jitter and --seed as an impairment of the call's own packets, the
    /// same both ways (nil when none is given).
    func networkImpairment() throws -> NetworkImpairment? {
        guard ["loss", "burst", "delay", "jitter"].contains(where: { string($0) != nil }) else {
            if string("seed") != nil { throw UsageError("--seed needs --loss, --burst, --delay or --jitter") }
            return nil
        }
        let link = try linkImpairment(maximumMilliseconds: 10_000)
        var impairment = NetworkImpairment(
            delay: link.delay, jitter: link.jitter, seed: UInt64(try int("seed", in: 0...Int.max) ?? 1))
        let loss = (try double("loss", in: 0...100) ?? 0) / 100
        guard loss < 1 else { throw UsageError("--loss must be below 100") }
        impairment.send.loss = loss
        impairment.send.meanBurstLength = max(1, (try double("burst", in: 20...10_000) ?? 20) / 20)
        impairment.receive = impairment.send
        return impairment
    }

    private func milliseconds(_ name: String, maximum: Double) throws -> Duration {
        .microseconds(Int64((try double(name, in: 0...maximum) ?? 0) * 1000))
    }
}
