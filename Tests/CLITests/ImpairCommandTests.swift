import Testing

@Suite struct ImpairCommandTests {
    @Test func wrongArgumentsAreUsageErrors() async throws {
        let addresses = ["--listen", "127.0.0.1:39001", "--upstream", "127.0.0.1:39002"]
        let cases: [[String]] = [
            ["--loss", "150"], ["--burst", "60"], ["--loss", "5", "--burst", "10"], ["--jitter", "-1"],
            ["--distribution", "cauchy"], ["--outage", "5"], ["--outage", "9:3"], ["--frobnicate"],
        ]
        for extra in cases {
            let arguments = ["impair"] + addresses + extra
            let result = try await runPolyvoice(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains("polyvoice impair --help"), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
    }
}
