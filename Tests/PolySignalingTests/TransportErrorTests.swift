// What a URLSession failure becomes: libcurl's certificate errors arrive as URLError -1 with curl's text, and
// must still read as TLS failures (the CLI's "no CA file" case), while other unknown errors stay generic.
import Foundation
import Testing

@testable import PolySignaling

@Suite struct TransportErrorTests {
    static func curlError(_ text: String) -> URLError {
        URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: text])
    }

    @Test func curlCertificateProblemsAreTLSFailures() {
        #expect(
            SignalingError.transport(
                from: Self.curlError("SSL certificate problem: unable to get local issuer certificate"))
                == .transport("TLS failure: SSL certificate problem: unable to get local issuer certificate"))
        #expect(
            SignalingError.transport(from: Self.curlError("SSL: no alternative certificate subject name matches"))
                == .transport("TLS failure: SSL: no alternative certificate subject name matches"))
    }

    @Test func otherErrorsKeepTheirMapping() {
        #expect(SignalingError.transport(from: Self.curlError("something else")) == .transport("network error (-1)"))
        #expect(SignalingError.transport(from: URLError(.timedOut)) == .transport("request timed out"))
        #expect(SignalingError.transport(from: URLError(.serverCertificateUntrusted)) == .transport("TLS failure"))
    }
}
