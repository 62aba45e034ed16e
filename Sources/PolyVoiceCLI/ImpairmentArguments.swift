// The network-impairment options shared by `impair` and `loopback`: --loss, --burst, --delay, --jitter.
import PolyVoiceTesting

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

    private func milliseconds(_ name: String, maximum: Double) throws -> Duration {
        .microseconds(Int64((try double(name, in: 0...maximum) ?? 0) * 1000))
    }
}
