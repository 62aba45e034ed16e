// Host names of STUN and TURN servers → addresses, with getaddrinfo on a thread of its own, so neither an
// event loop, the audio clock nor the cooperative pool ever waits on DNS.
import Glibc
import PolyCore

public enum HostLookup {
    /// Why a name did not resolve (getaddrinfo's message).
    public struct LookupFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A STUN/TURN server URL's addresses: its IP literal, or its name looked up off the calling thread.
    public static func addresses(of url: ICEServerURL) async -> Result<[TransportAddress], LookupFailure> {
        if let literal = url.literalAddress { return .success([literal]) }
        return await lookUpOffThread(host: url.host, port: url.port)
    }

    /// `lookUp` on a new thread (getaddrinfo blocks for as long as the system resolver takes).
    public static func lookUpOffThread(host: String, port: UInt16) async -> Result<[TransportAddress], LookupFailure> {
        await withCheckedContinuation { continuation in
            DetachedThread.start { continuation.resume(returning: lookUp(host: host, port: port)) }
        }
    }

    /// Blocking getaddrinfo for UDP: the first IPv4 and the first IPv6 address, in that order.
    public static func lookUp(host: String, port: UInt16) -> Result<[TransportAddress], LookupFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else {
            let reason = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
            return .failure(LookupFailure(description: reason))
        }
        defer { freeaddrinfo(list) }
        var v4: IPAddress?
        var v6: IPAddress?
        var entry = list
        while let info = entry?.pointee {
            entry = info.ai_next
            guard let address = info.ai_addr else { continue }
            if info.ai_family == AF_INET, v4 == nil {
                let bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                }
                v4 = IPAddress(bytes: bytes)
            } else if info.ai_family == AF_INET6, v6 == nil {
                let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                }
                v6 = IPAddress(bytes: bytes)
            }
        }
        let found = [v4, v6].compactMap { $0 }.map { TransportAddress(ip: $0, port: port) }
        guard !found.isEmpty else { return .failure(LookupFailure(description: "no IPv4 or IPv6 address")) }
        return .success(found)
    }
}
