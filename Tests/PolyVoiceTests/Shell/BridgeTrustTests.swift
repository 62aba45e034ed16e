// Which CA file a call's REST transport trusts for its bridge: every bridge goes through the project's own
// client (docs/MEMORY.md), and a CA file only concerns an https: one.
import Foundation
import Testing

@testable import PolyVoice

@Suite struct BridgeTrustTests {
    @Test func aCAFileIsTrustedForHTTPSBridgesOnly() {
        #expect(BridgeTrust.transport(for: URL(string: "http://127.0.0.1:8080/")!, caFile: nil).trustedCAFile == nil)
        // A CA file only concerns TLS: a plain-HTTP bridge ignores it.
        #expect(
            BridgeTrust.transport(for: URL(string: "http://bridge.test/")!, caFile: "/etc/ca.pem").trustedCAFile == nil)
        #expect(
            BridgeTrust.transport(for: URL(string: "HTTPS://bridge.test/")!, caFile: "/etc/ca.pem").trustedCAFile
                == "/etc/ca.pem")
        #expect(BridgeTrust.transport(for: URL(string: "https://bridge.test/")!, caFile: nil).trustedCAFile == nil)
    }
}
