// Scenario files: the issue's example in JSON and YAML gives the same scenario; bad files name the file,
// the line or key path and what was expected; malformed input never crashes.
import Foundation
import Testing

@testable import PolyConversation

@Suite struct ScenarioParsingTests {
    static let json = """
        {"name": "book a table",
         "voice": "en-us",
         "network": {"loss": 0.05, "burst": 3, "delay_ms": 40, "jitter_ms": 20, "outage": [[6.0, 8.0]], "seed": 7},
         "steps": [
           {"say": "Hello, I would like to book a table."},
           {"wait_for_agent": {"timeout_s": 8}},
           {"play": "caller/four-people.wav"},
           {"wait_for_agent": {}},
           {"say": "Sorry, one more thing.", "barge_in_after_ms": 1000},
           {"backchannel": "mm-hmm", "after_ms": 800},
           {"silence_s": 3},
           {"dtmf": "12#"}
         ],
         "expect": {"response_latency_ms": {"max": 1500, "p95_max": 1200},
                    "agent_yields_within_ms": 800, "no_false_yield": true, "agent_speaks": true}}
        """

    static let yaml = """
        name: book a table
        voice: en-us
        network: {loss: 0.05, burst: 3, delay_ms: 40, jitter_ms: 20, outage: [[6.0, 8.0]], seed: 7}
        steps:
          - say: Hello, I would like to book a table.
          - wait_for_agent: {timeout_s: 8}
          - play: caller/four-people.wav
          - wait_for_agent: {}
          - say: Sorry, one more thing.
            barge_in_after_ms: 1000
          - backchannel: mm-hmm
            after_ms: 800
          - silence_s: 3
          - dtmf: "12#"
        expect:
          response_latency_ms: {max: 1500, p95_max: 1200}
          agent_yields_within_ms: 800
          no_false_yield: true
          agent_speaks: true
        """

    static func parse(_ text: String, _ file: String) throws(ScenarioError) -> Scenario {
        try ScenarioLoader.parse(Array(text.utf8), file: file)
    }

    @Test func issueExampleParsesTheSameFromJSONAndYAML() throws {
        let fromJSON = try Self.parse(Self.json, "a.json")
        var fromYAML = try Self.parse(Self.yaml, "a.yaml")
        fromYAML.sourceFile = "a.json"
        #expect(fromJSON == fromYAML)
        #expect(fromJSON.name == "book a table")
        #expect(fromJSON.steps.count == 8)
        #expect(fromJSON.steps[1].action == .waitForAgent(timeoutSeconds: 8, settleSeconds: 1))
        #expect(fromJSON.steps[3].action == .waitForAgent(timeoutSeconds: 10, settleSeconds: 1))
        #expect(fromJSON.steps[4].bargeInAfterMs == 1000)
        #expect(fromJSON.steps[5].afterMs == 800)
        #expect(fromJSON.steps[7].action == .dtmf("12#"))
        #expect(fromJSON.network?.send.loss == 0.05)
        #expect(fromJSON.network?.receive.outages == [6.0...8.0])
        #expect(fromJSON.network?.seed == 7)
        #expect(fromJSON.expect.responseLatencyMs == .init(max: 1500, p95Max: 1200))
        #expect(fromJSON.expect.agentYieldsWithinMs == 800)
        #expect(fromJSON.expect.noFalseYield == true)
    }

    @Test func theSampleScenarioLoadsAndCanRun() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let path = root.appendingPathComponent("Samples/ConversationTest/book-a-table.yaml").path
        let scenario = try ScenarioLoader.load(path: path)
        #expect(scenario.steps.count == 7)  // say, wait, say, barge-in, backchannel, wait, silence
        let impairment = try #require(
            ScenarioSupport.impairment(try Self.parse(Self.json, "a.json").network, callSeed: 99, index: 3))
        #expect(impairment.seed == 10)  // the block's seed 7 + call 3
        #expect(impairment.send.loss == 0.05 && impairment.send.meanBurstLength == 3)
        #expect(impairment.receive.delay == .milliseconds(40) && impairment.receive.jitter == .milliseconds(20))
        #expect(impairment.receive.outages == [6.0..<8.0])
    }

    @Test func perDirectionNetwork() throws {
        let scenario = try Self.parse(
            #"{"name":"n","steps":[{"silence_s":1}],"network":{"send":{"loss":0.1},"receive":{"jitter_ms":30}}}"#,
            "n.json")
        #expect(scenario.network?.send.loss == 0.1)
        #expect(scenario.network?.send.jitterMs == 0)
        #expect(scenario.network?.receive.jitterMs == 30)
    }

    /// (file, text, line expected, path expected, words the message must hold)
    static let badFiles: [(String, String, Int?, String?, String)] = [
        (
            "x.yaml", "name: a\nsteps:\n  - say: hi\n  - wait_for_agent: {timeout_s: soon}\n", 4,
            "steps[1].wait_for_agent.timeout_s", "expected a number"
        ),
        ("x.yaml", "name: a\nsteps:\n  - sya: hi\n", 3, "steps[0].sya", "unknown key 'sya'"),
        ("x.yaml", "name: a\nsteps: []\n", 2, "steps", "at least one step"),
        ("x.yaml", "steps:\n  - say: hi\n", 1, nil, "missing required key 'name'"),
        ("x.yaml", "name: a\nsteps:\n  - say: hi\n    play: b.wav\n", 3, "steps[0]", "one action"),
        ("x.yaml", "name: a\nsteps:\n  - silence_s: -1\n", 3, "steps[0].silence_s", "from 0 to 600"),
        ("x.yaml", "name: a\nsteps:\n  - say: [1\n", nil, nil, "invalid YAML"),
        ("x.yaml", "name: &x a\nsteps:\n  - say: *x\n", 1, nil, "anchors"),
        ("x.yaml", "name: a\nsteps:\n  - dtmf: 12x\n", 3, "steps[0].dtmf", "DTMF digits"),
        (
            "x.yaml", "name: a\nsteps:\n  - wait_for_agent: {}\n    barge_in_after_ms: 3\n", 4,
            "steps[0].barge_in_after_ms", "only a say or play"
        ),
        (
            "x.yaml", "name: a\nexpect: {no_false_yield: \"yes\"}\nsteps:\n  - say: hi\n", 2, "expect.no_false_yield",
            "true or false"
        ),
        ("x.json", "{\"name\": \"a\",\n \"steps\": [\n {\"say\": 3}]}", 3, "steps[0].say", "expected text"),
        ("x.json", "{\"name\": \"a\",\n \"steps\": [\n {\"say\": \"x\",}]}", 3, nil, "invalid JSON"),
        ("x.json", "{\"name\": \"a\", \"name\": \"b\"}", 1, nil, "duplicate key"),
        (
            "x.json", "{\"name\": \"a\", \"steps\": [{\"silence_s\": \"3\"}]}", 1, "steps[0].silence_s",
            "expected a number"
        ),
        ("x.yaml", "name: a\nsteps:\n  - silence_s: \"3\"\n", 3, "steps[0].silence_s", "expected a number"),
        ("x.yaml", "name: a\nnetwork: {loss: 2}\nsteps:\n  - say: hi\n", 2, "network.loss", "from 0 to 1"),
        ("x.yaml", "name: a\nnetwork: {outage: [[8, 6]]}\nsteps:\n  - say: hi\n", 2, "network.outage[0]", "end after"),
    ]

    @Test func badFilesNameFileLinePathAndWhatWasExpected() {
        for (file, text, line, path, words) in Self.badFiles {
            do {
                _ = try Self.parse(text, file)
                Issue.record("\(file) \(text.debugDescription) parsed")
            } catch {
                #expect(error.file == file)
                if let line { #expect(error.line == line, "\(error)") }
                if let path { #expect(error.path == path, "\(error)") }
                #expect(error.description.contains(words), "\(error)")
                #expect(error.description.hasPrefix(file + (error.line.map { ":\($0)" } ?? "")))
            }
        }
    }

    /// Truncations, byte flips and nesting bombs of valid files: each must parse or throw, never trap.
    @Test func malformedInputsNeverCrash() {
        var inputs: [(String, [UInt8])] = []
        for (file, text) in [("m.json", Self.json), ("m.yaml", Self.yaml)] {
            let bytes = Array(text.utf8)
            for cut in stride(from: 0, to: bytes.count, by: 7) { inputs.append((file, Array(bytes[..<cut]))) }
            var random = UInt64(12345)
            for _ in 0..<300 {
                var copy = bytes
                for _ in 0..<3 {
                    random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    copy[Int(random >> 33) % copy.count] = UInt8(truncatingIfNeeded: random >> 13)
                }
                inputs.append((file, copy))
            }
        }
        inputs.append(("deep.json", Array(String(repeating: "[", count: 100_000).utf8)))
        inputs.append(("deep.yaml", Array(String(repeating: "[", count: 100_000).utf8)))
        inputs.append(("deep.yaml", Array(String(repeating: "- ", count: 10_000).utf8)))
        inputs.append(("nul.yaml", [0, 0, 0xFF, 0xFE]))
        inputs.append(("bom.json", [0xEF, 0xBB, 0xBF] + Array("{}".utf8)))
        inputs.append(("u.json", Array(#"{"name":"\ud800","steps":[{"say":"\u00e9\uD83D\uDE00"}]}"#.utf8)))
        inputs.append(("two.yaml", Array("name: a\n---\nname: b\n".utf8)))
        inputs.append(("num.json", Array(#"{"name":"a","steps":[{"silence_s":1e999}]}"#.utf8)))
        var parsed = 0
        for (file, bytes) in inputs {
            if (try? ScenarioLoader.parse(bytes, file: file)) != nil { parsed += 1 }
        }
        #expect(parsed < inputs.count)  // most are broken; the point is that none trapped
    }
}
