// `polyvoice demo` as a user runs it: a whole local call with generated speech and a summary.
import Foundation
import Testing

@Suite("polyvoice demo", .serialized)
struct DemoCommandTests {
    @Test func echoDemoPrintsASummaryAndWritesTheWAVs() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("polyvoice-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try await runPolyvoice(["demo", "--agent", "echo", "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("setup (provision → connected):"))
        #expect(result.stdout.contains("packets: sent"))
        #expect(result.stdout.contains("PESQ"))
        for name in ["caller.wav", "caller-heard.wav"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path), "\(name)")
        }
    }

    @Test func unknownAgentIsAUsageError() async throws {
        let result = try await runPolyvoice(["demo", "--agent", "opera"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--agent"))
    }
}
