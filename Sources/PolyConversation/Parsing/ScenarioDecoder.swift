// The schema: `ScenarioNode` → `Scenario`, one place for JSON and YAML, every error with file, line and path.

enum ScenarioDecoder {
    static func decode(_ root: ScenarioNode, file: String) throws(ScenarioError) -> Scenario {
        let top = try NodeReader(node: root, path: "", file: file).mapping(allowed: [
            "name", "voice", "words_per_minute", "seed", "network", "steps", "expect", "hangup_after_silence_s",
        ])
        guard let name = top["name"] else { throw missing("name", in: root, file: file) }
        guard let stepsNode = top["steps"] else { throw missing("steps", in: root, file: file) }
        let steps = try stepsNode.sequence()
        guard !steps.isEmpty else { throw stepsNode.failure("needs at least one step") }
        guard steps.count <= 10_000 else { throw stepsNode.failure("more than 10000 steps") }
        var scenario = Scenario(
            name: try name.nonEmptyString(maxLength: 200),
            steps: try steps.map { step throws(ScenarioError) in try decodeStep(step) },
            sourceFile: file)
        if let voice = top["voice"] {
            scenario.voice = try voice.nonEmptyString(maxLength: 64)
            guard scenario.voice.allSatisfy({ $0.isLetter || $0.isNumber || "-_+".contains($0) }) else {
                throw voice.failure("expected an espeak-ng voice name such as en-us")
            }
        }
        if let rate = top["words_per_minute"] { scenario.wordsPerMinute = try rate.integer(in: 80...450) }
        if let seed = top["seed"] { scenario.seed = UInt64(try seed.integer(in: 0...Int(Int32.max))) }
        if let network = top["network"] { scenario.network = try decodeNetwork(network) }
        if let expect = top["expect"] { scenario.expect = try decodeExpect(expect) }
        if let hangup = top["hangup_after_silence_s"] {
            scenario.hangupAfterSilenceSeconds = try hangup.number(in: 0...60)
        }
        return scenario
    }

    private static func missing(_ key: String, in node: ScenarioNode, file: String) -> ScenarioError {
        ScenarioError(file: file, line: node.line, path: nil, message: "missing required key '\(key)'")
    }

    static let actions = ["say", "play", "silence_s", "wait_for_agent", "backchannel", "dtmf"]

    private static func decodeStep(_ reader: NodeReader) throws(ScenarioError) -> Step {
        let keys = try reader.mapping(allowed: actions + ["barge_in_after_ms", "after_ms"])
        let present = actions.filter { keys[$0] != nil }
        guard present.count == 1, let kind = present.first, let value = keys[kind] else {
            throw reader.failure(
                present.isEmpty
                    ? "a step needs one of: \(actions.joined(separator: ", "))"
                    : "a step has one action, not \(present.joined(separator: " and "))")
        }
        let action: Step.Action
        switch kind {
        case "say": action = .say(try value.nonEmptyString(maxLength: 2000))
        case "play": action = .play(try value.nonEmptyString(maxLength: 4096))
        case "silence_s": action = .silence(seconds: try value.number(in: 0...600))
        case "backchannel": action = .backchannel(try value.nonEmptyString(maxLength: 200))
        case "dtmf":
            let digits = try value.nonEmptyString(maxLength: 64)
            guard digits.allSatisfy({ "0123456789*#ABCDabcd".contains($0) }) else {
                throw value.failure("expected DTMF digits 0-9, *, #, A-D")
            }
            action = .dtmf(digits.uppercased())
        default:
            let options = try value.mapping(allowed: ["timeout_s", "settle_s"])
            action = .waitForAgent(
                timeoutSeconds: try options["timeout_s"]?.number(in: 0.1...3600) ?? 10,
                settleSeconds: try options["settle_s"]?.number(in: 0.1...60) ?? 1)
        }
        var step = Step(action, path: reader.path)
        if let barge = keys["barge_in_after_ms"] {
            guard kind == "say" || kind == "play" else { throw barge.failure("only a say or play step can barge in") }
            step.bargeInAfterMs = try barge.integer(in: 0...600_000)
        }
        if let after = keys["after_ms"] {
            guard kind == "backchannel" else { throw after.failure("after_ms belongs to a backchannel step") }
            step.afterMs = try after.integer(in: 0...600_000)
        }
        if kind == "backchannel", step.afterMs == nil { step.afterMs = 800 }
        return step
    }

    private static func decodeNetwork(_ reader: NodeReader) throws(ScenarioError) -> ScenarioNetwork {
        let directionKeys = ["loss", "burst", "delay_ms", "jitter_ms", "outage"]
        let keys = try reader.mapping(allowed: directionKeys + ["seed", "send", "receive"])
        let both = try decodeDirection(reader, keys: keys)
        let seed = try keys["seed"].map { seed throws(ScenarioError) in UInt64(try seed.integer(in: 0...Int(Int32.max)))
        }
        func direction(_ name: String) throws(ScenarioError) -> ScenarioNetwork.Direction {
            guard let node = keys[name] else { return both }
            return try decodeDirection(node, keys: node.mapping(allowed: directionKeys))
        }
        return ScenarioNetwork(send: try direction("send"), receive: try direction("receive"), seed: seed)
    }

    private static func decodeDirection(_ reader: NodeReader, keys: [String: NodeReader]) throws(ScenarioError)
        -> ScenarioNetwork.Direction
    {
        var direction = ScenarioNetwork.Direction()
        if let loss = keys["loss"] {
            direction.loss = try loss.number(in: 0...1)
            guard direction.loss < 1 else { throw loss.failure("must be below 1 (every packet lost is an outage)") }
        }
        if let burst = keys["burst"] { direction.burst = try burst.number(in: 1...100) }
        if let delay = keys["delay_ms"] { direction.delayMs = try delay.number(in: 0...10_000) }
        if let jitter = keys["jitter_ms"] { direction.jitterMs = try jitter.number(in: 0...10_000) }
        if let outage = keys["outage"] {
            for interval in try outage.sequence() {
                let ends = try interval.sequence()
                guard ends.count == 2 else { throw interval.failure("expected [start_s, end_s]") }
                let start = try ends[0].number(in: 0...86_400)
                let end = try ends[1].number(in: 0...86_400)
                guard end > start else { throw interval.failure("an outage must end after it starts") }
                direction.outages.append(start...end)
            }
        }
        return direction
    }

    private static func decodeExpect(_ reader: NodeReader) throws(ScenarioError) -> Expectations {
        let keys = try reader.mapping(allowed: [
            "response_latency_ms", "agent_yields_within_ms", "no_false_yield", "agent_speaks", "max_dead_air_ms",
        ])
        var expect = Expectations()
        if let latency = keys["response_latency_ms"] {
            let bounds = try latency.mapping(allowed: ["max", "p95_max", "p50_max", "min"])
            let range = 0.0...600_000
            expect.responseLatencyMs = Expectations.Latency(
                max: try bounds["max"]?.number(in: range), p95Max: try bounds["p95_max"]?.number(in: range),
                p50Max: try bounds["p50_max"]?.number(in: range), min: try bounds["min"]?.number(in: range))
        }
        if let yields = keys["agent_yields_within_ms"] {
            expect.agentYieldsWithinMs = try yields.number(in: 0...600_000)
        }
        if let falseYield = keys["no_false_yield"] { expect.noFalseYield = try falseYield.bool() }
        if let speaks = keys["agent_speaks"] { expect.agentSpeaks = try speaks.bool() }
        if let deadAir = keys["max_dead_air_ms"] { expect.maxDeadAirMs = try deadAir.number(in: 0...600_000) }
        return expect
    }
}
