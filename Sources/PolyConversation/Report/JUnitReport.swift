// JUnit XML for CI: one test suite per scenario, a test case per call and per expectation of each call,
// `<failure>` with the reason.

public enum JUnitReport {
    public static func xml(suites: [(scenario: Scenario, results: [CallResult])]) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let total = suites.reduce(0) { $0 + $1.results.reduce(0) { $0 + 1 + $1.expectations.count } }
        let failures = suites.reduce(0) {
            $0
                + $1.results.reduce(0) { count, result in
                    count + (result.ok ? 0 : 1) + result.expectations.filter { $0.failure != nil }.count
                }
        }
        out += "<testsuites name=\"polyvoice test\" tests=\"\(total)\" failures=\"\(failures)\">\n"
        for (scenario, results) in suites {
            let cases = results.reduce(0) { $0 + 1 + $1.expectations.count }
            let failed = results.reduce(0) { $0 + ($1.ok ? 0 : 1) + $1.expectations.filter { $0.failure != nil }.count }
            out +=
                "  <testsuite name=\"\(escape(scenario.name))\" tests=\"\(cases)\" failures=\"\(failed)\" file=\"\(escape(scenario.sourceFile))\">\n"
            for result in results {
                let seconds = Double(result.heard.count) / Double(ConversationClock.sampleRate)
                let name = "call \(result.call) (seed \(result.seed))"
                out +=
                    "    <testcase classname=\"\(escape(scenario.name))\" name=\"\(escape(name))\" time=\"\(String(cFormat: "%.3f", seconds))\""
                if result.ok {
                    out += "/>\n"
                } else {
                    out += ">\n      <failure message=\"\(escape(result.failures.first ?? "failed"))\">"
                    out += escape(result.failures.joined(separator: "\n")) + "</failure>\n    </testcase>\n"
                }
                for expectation in result.expectations {
                    out +=
                        "    <testcase classname=\"\(escape(scenario.name))\" name=\"\(escape(name + ": " + expectation.name))\""
                    if let failure = expectation.failure {
                        out += ">\n      <failure message=\"\(escape(failure))\"/>\n    </testcase>\n"
                    } else {
                        out += "/>\n"
                    }
                }
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n": out += "&#10;"
            case let c where c.value < 0x20 && c != "\t": out += "?"  // not allowed in XML 1.0
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
