// STUN server URLs from the provisioning response (`iceServers[].urls`) → addresses for the ICE agent.
// IP literals are used as they are; host names are resolved by `HostLookup` on a thread of their own.
import PolyNet

enum STUNServerResolver {
    /// The addresses of every `stun:` URL: the literal, or the first IPv4 and first IPv6 address of the name.
    /// `turn:`/`turns:` URLs are `TURNServerResolver`'s; `stuns:` is not supported.
    /// Throws `.transport` naming the server when a URL is malformed or its name does not resolve.
    static func resolve(_ urls: [String]) async throws(PolyError) -> [TransportAddress] {
        var addresses: [TransportAddress] = []
        for text in urls {
            guard text.lowercased().hasPrefix("stun:") else { continue }
            guard let url = ICEServerURL(text) else {
                throw .transport("The STUN server URL \"\(text)\" is malformed (expected stun:host[:port])")
            }
            let found: [TransportAddress]
            switch await HostLookup.addresses(of: url) {
            case .success(let resolved): found = resolved
            case .failure(let reason):
                throw .transport("The STUN server \"\(url.host):\(url.port)\" could not be resolved: \(reason)")
            }
            for address in found where !addresses.contains(address) { addresses.append(address) }
        }
        return addresses
    }
}
