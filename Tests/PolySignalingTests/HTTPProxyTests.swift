// Which proxy an https: request tunnels through, read from the environment as curl (and so URLSession on
// Linux) reads it, and the CONNECT request that opens the tunnel: credentials go only into
// Proxy-Authorization, never into a description or an error.
import Foundation
import Testing

@testable import PolySignaling

@Suite struct HTTPProxyTests {
    @Test func theVariablesInCurlsOrder() throws {
        let proxy = try HTTPProxy.forHTTPS(host: "bridge.test", environment: ["https_proxy": "http://proxy.lan:3128/"])
        #expect(proxy == HTTPProxy(host: "proxy.lan", port: 3128))
        #expect(try HTTPProxy.forHTTPS(host: "b", environment: ["HTTPS_PROXY": "http://upper:1"])?.host == "upper")
        #expect(
            try HTTPProxy.forHTTPS(
                host: "b", environment: ["https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:1"])?
                .host == "lower")
        #expect(try HTTPProxy.forHTTPS(host: "b", environment: ["ALL_PROXY": "http://all:1"])?.host == "all")
        #expect(
            try HTTPProxy.forHTTPS(
                host: "b", environment: ["https_proxy": "http://https:1", "all_proxy": "http://all:1"])?
                .host == "https")
        // http_proxy concerns http: URLs only, and an empty setting is none.
        #expect(try HTTPProxy.forHTTPS(host: "b", environment: ["http_proxy": "http://plain:1"]) == nil)
        #expect(try HTTPProxy.forHTTPS(host: "b", environment: ["https_proxy": ""]) == nil)
        #expect(try HTTPProxy.forHTTPS(host: "b", environment: [:]) == nil)
    }

    @Test func settingsWithoutSchemePortOrWithIPv6() throws {
        #expect(try HTTPProxy.parse("proxy.lan") == HTTPProxy(host: "proxy.lan", port: 1080))
        #expect(try HTTPProxy.parse("proxy.lan:8080/") == HTTPProxy(host: "proxy.lan", port: 8080))
        #expect(try HTTPProxy.parse("HTTP://[::1]:8080") == HTTPProxy(host: "::1", port: 8080))
    }

    @Test func credentialsBecomeBasicAuthorizationAndStayOutOfDescriptions() throws {
        let proxy = try HTTPProxy.parse("http://pv%20user:s3cr%3Aet@proxy.lan:3128")
        #expect(proxy.authorization == "Basic " + Data("pv user:s3cr:et".utf8).base64EncodedString())
        #expect("\(proxy)" == "HTTPProxy(proxy.lan:3128, with credentials)")
        #expect(
            try HTTPProxy.parse("http://only-user@p:1").authorization == "Basic "
                + Data("only-user:".utf8).base64EncodedString())
    }

    @Test func unusableSettingsAreErrorsNotADirectConnection() {
        for (setting, reason) in [
            ("socks5://127.0.0.1:1080", "only http:// proxies are supported, not socks5://"),
            ("https://proxy.lan:443", "only http:// proxies are supported, not https://"),
            ("http://proxy.lan:99999", "bad port"),
            ("http://proxy.lan:0", "bad port"),
            ("http://user:secret@:1", "no host"),
        ] {
            #expect(throws: SignalingError.transport("unusable proxy setting: \(reason)"), "\(setting)") {
                try HTTPProxy.forHTTPS(host: "b", environment: ["https_proxy": setting])
            }
        }
    }

    @Test func noProxyNamesHostsAndDomainsThatGoDirect() throws {
        let cases: [(host: String, noProxy: String, direct: Bool)] = [
            ("bridge.test", "*", true),
            ("bridge.test", "bridge.test", true),
            ("BRIDGE.test", "other.test, Bridge.Test", true),
            ("a.bridge.test", "bridge.test", true),
            ("a.bridge.test", ".bridge.test", true),
            ("notbridge.test", "bridge.test", false),
            ("bridge.test", "a.bridge.test", false),
            ("bridge.test", "bridge.test:443", true),
            ("127.0.0.1", "localhost,127.0.0.1", true),
            ("127.0.0.10", "127.0.0.1", false),
            ("::1", "[::1]", true),
            ("::1", "::1", true),
            ("bridge.test", " , ,", false),
            ("bridge.test", "", false),
        ]
        for item in cases {
            #expect(HTTPProxy.bypasses(host: item.host, noProxy: item.noProxy) == item.direct, "\(item)")
        }
        let environment = ["https_proxy": "http://p:1", "NO_PROXY": "bridge.test"]
        #expect(try HTTPProxy.forHTTPS(host: "bridge.test", environment: environment) == nil)
        #expect(try HTTPProxy.forHTTPS(host: "other.test", environment: environment) != nil)
        // A host no_proxy covers goes direct even when the proxy setting is unusable.
        #expect(try HTTPProxy.forHTTPS(host: "b", environment: ["https_proxy": "socks5://p", "no_proxy": "*"]) == nil)
    }

    @Test func theConnectRequest() {
        #expect(
            String(
                decoding: HTTPProxy(host: "p", port: 1).connectRequest(toHost: "bridge.test", port: 443), as: UTF8.self)
                == "CONNECT bridge.test:443 HTTP/1.1\r\nHost: bridge.test:443\r\n\r\n")
        #expect(
            String(
                decoding: HTTPProxy(host: "p", port: 1, authorization: "Basic YTpi").connectRequest(
                    toHost: "::1", port: 8443),
                as: UTF8.self)
                == "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\nProxy-Authorization: Basic YTpi\r\n\r\n")
    }
}
