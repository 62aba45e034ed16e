import PolyNet
import Testing

/// IPAddress keeps its bytes inline: equality, hashing and the byte views must still follow the address.
@Suite struct IPAddressStorageTests {
    @Test func familiesWithTheSameLeadingBytesDiffer() throws {
        let v4 = try #require(IPAddress("1.2.3.4"))
        let v6 = try #require(IPAddress("102:304::"))
        #expect(v4.bytes == [1, 2, 3, 4])
        #expect(v6.bytes.prefix(4) == [1, 2, 3, 4] && v6.bytes.count == 16)
        #expect(v4 != v6)
        #expect(Set([v4, v6, IPAddress(v4: 1, 2, 3, 4)]).count == 2)
    }

    @Test func byteViewsMatchTheTextForm() throws {
        let v6 = try #require(IPAddress("2001:db8::ff00:42:8329"))
        #expect(v6.withUnsafeBytes { Array($0) } == v6.bytes)
        #expect(IPAddress(bytes: v6.bytes) == v6)
        #expect(IPAddress(bytes: v6.bytes)?.description == "2001:db8::ff00:42:8329")
        #expect(IPAddress(v4: 10, 0, 0, 1).withUnsafeBytes { $0.count } == 4)
        #expect(IPAddress(v4: 169, 254, 1, 1).isLinkLocal && !IPAddress(v4: 169, 1, 254, 1).isLinkLocal)
    }
}
