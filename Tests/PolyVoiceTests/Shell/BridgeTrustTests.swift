// Which REST transport a call uses for its bridge (docs/MEMORY.md: URLSession only where it buys something).
import Foundation
import Testing

@testable import PolyVoice

@Suite struct BridgeTrustTests {
    @Test func plainHTTPAndCAFileBridgesUseTheOwnClientOtherHTTPSOnesURLSession() {
        let plain = BridgeTrust.transport(for: URL(string: "http://127.0.0.1:8080/")!, caFile: nil)
        #expect((plain as? TLSHTTPTransport)?.trustedCAFile == nil)
        // A CA file only concerns TLS: a plain-HTTP bridge ignores it.
        let plainWithCA = BridgeTrust.transport(for: URL(string: "http://bridge.test/")!, caFile: "/etc/ca.pem")
        #expect((plainWithCA as? TLSHTTPTransport)?.trustedCAFile == nil)
        let pinned = BridgeTrust.transport(for: URL(string: "https://bridge.test/")!, caFile: "/etc/ca.pem")
        #expect((pinned as? TLSHTTPTransport)?.trustedCAFile == "/etc/ca.pem")
        let systemTrust = BridgeTrust.transport(for: URL(string: "HTTPS://bridge.test/")!, caFile: nil)
        #expect(systemTrust is RenewableHTTPTransport)
    }
}
