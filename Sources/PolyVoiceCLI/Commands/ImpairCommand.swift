// `polyvoice impair`: a UDP relay that impairs traffic (loss, jitter, duplication, outages) like netem.
import PolyNet
import PolyVoiceTesting

extension Subcommand {
    static let impair = Subcommand(
        name: "impair",
        summary: "Relay UDP between a client and an upstream with loss, jitter, duplication, outages",
        help: """
            Usage: polyvoice impair --listen ADDR:PORT --upstream ADDR:PORT [options]

            Clients send to --listen; each client's datagrams go to --upstream from a socket of its own, and
            replies come back the same way (like a 1:1 NAT). Point the bridge's --advertise at --listen.
            Counters are printed on exit (Ctrl-C, or after --duration).

            Options:
              --listen ADDR:PORT     Address to receive client datagrams on (required)
              --upstream ADDR:PORT   Address to forward them to (required)
              --loss PCT             Packet loss in percent (0-100; default 0)
              --burst MS             Mean loss burst length in ms (20 ms packets): bursty Gilbert-Elliott loss
              --delay MS             Fixed one-way delay in ms (default 0)
              --jitter MS            Standard deviation of extra delay in ms; reorders packets like netem
              --distribution D       Jitter distribution: normal (default) or pareto
              --keep-order           Never let a packet overtake an earlier one
              --duplicate PCT        Percentage of packets delivered twice
              --outage A:B           Drop everything from A to B seconds after start (repeatable)
              --rate KBPS            Rate limit in kbit/s
              --seed N               Seed of the random decisions (default 1)
              --direction D          Impair both (default), up (client to upstream) or down
              --after S              Pass traffic unimpaired for S seconds first (e.g. a call's set-up)
              --per-client           Give each client its own copy of the impairment, seeded alike and
                                     started at its first datagram (--after and --outage count from
                                     there): concurrent clients see the same losses and delays
              --duration S           Stop after S seconds
            """,
        run: { arguments in try ImpairCommand.run(arguments) }
    )
}

private enum ImpairCommand {
    static func run(_ arguments: [String]) throws -> Int32 {
        let (outageTexts, rest) = extractRepeated("outage", from: arguments)
        let parsed = try Arguments(
            rest,
            valued: [
                "listen", "upstream", "loss", "burst", "delay", "jitter", "distribution", "duplicate", "rate", "seed",
                "direction", "duration", "after",
            ],
            flagNames: ["keep-order", "per-client"])
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let listen = try address(parsed, "listen")
        let upstream = try address(parsed, "upstream")
        let impairment = try linkImpairment(parsed, outages: outageTexts.map(outage))
        let seed = UInt64(try parsed.int("seed", in: 0...Int.max) ?? 1)
        let duration = try parsed.double("duration", in: 0...1e9)
        let after = try parsed.double("after", in: 0...86_400) ?? 0
        let direction = parsed.string("direction") ?? "both"
        guard ["both", "up", "down"].contains(direction) else {
            throw UsageError("--direction must be both, up or down, not '\(direction)'")
        }
        let configuration = ImpairmentRelay.Configuration(
            listen: listen, upstream: upstream, up: direction == "down" ? .perfect : impairment,
            down: direction == "up" ? .perfect : impairment, seed: seed, impairAfter: .seconds(after),
            perClient: parsed.flag("per-client"))

        let termination = TerminationSignals()
        let relay: ImpairmentRelay
        do {
            relay = try ImpairmentRelay(configuration)
        } catch {
            printError("polyvoice impair: \(error)")
            return ExitCode.network
        }
        print("impair: relaying \(relay.listenAddress) -> \(upstream) (direction \(direction), seed \(seed))")
        termination.wait(orSeconds: duration)
        relay.stop()
        print(relay.counters.description)
        return ExitCode.ok
    }

    /// Removes every `--name value` / `--name=value` (the shared parser keeps only the last of repeats).
    private static func extractRepeated(_ name: String, from arguments: [String]) -> ([String], [String]) {
        var values: [String] = []
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--\(name)", index + 1 < arguments.count {
                values.append(arguments[index + 1])
                index += 2
                continue
            }
            if argument.hasPrefix("--\(name)=") {
                values.append(String(argument.dropFirst(name.count + 3)))
            } else {
                rest.append(argument)
            }
            index += 1
        }
        return (values, rest)
    }

    private static func address(_ parsed: Arguments, _ name: String) throws -> TransportAddress {
        guard let text = parsed.string(name) else { throw UsageError("--\(name) is required") }
        guard let address = TransportAddress(text) else {
            throw UsageError("--\(name) must be ADDRESS:PORT (e.g. 127.0.0.1:5004), not '\(text)'")
        }
        return address
    }

    private static func outage(_ text: String) throws -> Range<Duration> {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Double(parts[0]), let end = Double(parts[1]), start >= 0, end > start
        else {
            throw UsageError("--outage must be START:END in seconds with END > START (e.g. 5:15), not '\(text)'")
        }
        return Duration.seconds(start)..<Duration.seconds(end)
    }

    private static func linkImpairment(_ parsed: Arguments, outages: [Range<Duration>]) throws -> LinkImpairment {
        var impairment = try parsed.linkImpairment(maximumMilliseconds: 600_000)
        impairment.outages = outages
        switch parsed.string("distribution") ?? "normal" {
        case "normal": impairment.jitterDistribution = .normal
        case "pareto": impairment.jitterDistribution = .pareto
        case let other: throw UsageError("--distribution must be normal or pareto, not '\(other)'")
        }
        impairment.keepsOrder = parsed.flag("keep-order")
        impairment.duplication = (try parsed.double("duplicate", in: 0...100) ?? 0) / 100
        if let kbps = try parsed.int("rate", in: 1...10_000_000) { impairment.rateBitsPerSecond = kbps * 1000 }
        return impairment
    }
}
