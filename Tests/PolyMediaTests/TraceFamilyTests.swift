// The `reorder` trace family: its packets overtake one another once its cross traffic starts, never before.
import Testing

@testable import PolyMedia

@Suite struct TraceFamilyTests {
    @Test func reorderedPacketsOvertakeOnlyOnceTheCrossTrafficStarts() throws {
        let entries = TraceProfile.reorder.generate(packets: 1500, seed: 7).entries
        let arrived = entries.compactMap { entry in entry.arrivalMs.map { (entry.sendMs, $0) } }
        let overtaken = arrived.indices.dropFirst().filter { arrived[$0].1 < arrived[$0 - 1].1 }
        // σ 15–35 ms against 20 ms between packets: a good share of 30 s of packets arrive before their predecessor.
        #expect(overtaken.count > 100)
        // Before the cross traffic starts (0–2 s in) the path adds 0–2 ms: nothing overtakes.
        let firstOvertake = arrived[try #require(overtaken.first)].0
        #expect(firstOvertake <= 2100)
        let beforeIt = arrived.filter { $0.0 < firstOvertake - 20 }
        #expect(beforeIt.allSatisfy { $0.1 - $0.0 - (beforeIt[0].1 - beforeIt[0].0) <= 2 })
        // Lost: 0.5 % on average, and the same seed gives the same trace.
        #expect(entries.count - arrived.count <= 20)
        let again = TraceProfile.reorder.generate(packets: 1500, seed: 7).entries
        #expect(again.map(\.arrivalMs) == entries.map(\.arrivalMs))
    }
}
