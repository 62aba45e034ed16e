// The scenario's parts that need the SDK's help: `network` maps onto its seeded impairment of the call's
// own packets.
import PolyVoice

public enum ScenarioSupport {
    /// The scenario's `network` block as the SDK's impairment of call `index`: seeded with the block's
    /// `seed` (else the call's seed) plus the call index, so every call has its own losses and a rerun of
    /// one call (`--only-call`) has the same ones. Outages count from media connected.
    public static func impairment(_ network: ScenarioNetwork?, callSeed: UInt64, index: Int) -> NetworkImpairment? {
        guard let network else { return nil }
        func link(_ direction: ScenarioNetwork.Direction) -> NetworkImpairment.Link {
            NetworkImpairment.Link(
                loss: direction.loss, meanBurstLength: direction.burst,
                delay: .microseconds(Int64(direction.delayMs * 1000)),
                jitter: .microseconds(Int64(direction.jitterMs * 1000)),
                outages: direction.outages.map { $0.lowerBound..<$0.upperBound })
        }
        let seed = network.seed.map { $0 &+ UInt64(index) } ?? callSeed
        return NetworkImpairment(send: link(network.send), receive: link(network.receive), seed: seed)
    }
}
