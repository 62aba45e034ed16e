// STUN server URLs from the provisioning response: literals, names resolved with getaddrinfo, clear errors.
import PolyNet
import Testing

@testable import PolyVoice

@Suite("STUN server resolution")
struct STUNServerResolverTests {
    @Test("a host name resolves off the event loop: localhost:3479 → 127.0.0.1:3479 (and ::1 when configured)")
    func resolvesLocalhost() async throws {
        let addresses = try await STUNServerResolver.resolve(["stun:localhost:3479"])
        #expect(addresses.first == TransportAddress("127.0.0.1:3479"))
        #expect(addresses.allSatisfy { $0.port == 3479 && $0.ip.isLoopback })
    }

    @Test("IP literals are used as they are, the default port is 3478, and other schemes are skipped")
    func literalsAndSchemes() async throws {
        let addresses = try await STUNServerResolver.resolve([
            "stun:192.0.2.7:19302", "stun:[2001:db8::1]", "turn:turn.example.org?transport=udp",
            "stuns:stun.example.org", "stun:192.0.2.7:19302",
        ])
        #expect(addresses == [TransportAddress("192.0.2.7:19302")!, TransportAddress("[2001:db8::1]:3478")!])
        #expect(try await STUNServerResolver.resolve([]).isEmpty)
    }

    @Test("an unresolvable name fails with a transport error naming the server")
    func unresolvableName() async {
        await #expect {
            _ = try await STUNServerResolver.resolve(["stun:127.0.0.1:3478", "stun:no-such-host.invalid:3478"])
        } throws: { error in
            guard case PolyError.transport(let message) = error else { return false }
            return message.contains("\"no-such-host.invalid:3478\" could not be resolved")
        }
    }

    @Test("a malformed stun: URL is refused clearly")
    func malformedURL() async {
        await #expect {
            _ = try await STUNServerResolver.resolve(["stun:host:notaport"])
        } throws: { error in
            guard case PolyError.transport(let message) = error else { return false }
            return message.contains("malformed")
        }
    }
}
