// `doctor --network`'s probes: one STUN binding and one TURN allocation from this machine over a real UDP
// socket, driven by a small blocking loop (doctor runs one check at a time; it needs no event loop).
import Glibc
import PolyCore
import PolyNet

enum NetworkProbe {
    /// A UDP socket on the wildcard address of `server`'s family.
    static func socket(toward server: TransportAddress) throws -> UDPSocket {
        let wildcard = server.family == .v4 ? IPAddress.anyV4 : IPAddress(bytes: [UInt8](repeating: 0, count: 16))!
        return try UDPSocket(bindingTo: TransportAddress(ip: wildcard, port: 0))
    }

    /// Waits up to `timeout` for one datagram from `server`.
    static func receive(on socket: UDPSocket, from server: TransportAddress, timeout: Duration) -> [UInt8]? {
        let end = Instant.now() + timeout
        var buffer = [UInt8](repeating: 0, count: 2048)
        while Instant.now() < end {
            var descriptor = pollfd(fd: socket.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let wait = Int32(max(0, min((end - Instant.now()).inMilliseconds, 100)))
            guard poll(&descriptor, 1, wait) == 1 else { continue }
            while let received = try? buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) }) {
                if received.source == server { return Array(buffer.prefix(received.count)) }
            }
        }
        return nil
    }

    /// A Binding request (retransmitted every 500 ms): the server-reflexive address, or nil after `timeout`.
    static func stunBinding(_ server: TransportAddress, timeout: Duration = .seconds(3)) throws -> TransportAddress? {
        let socket = try socket(toward: server)
        defer { socket.close() }
        var random = SystemRandomNumberGenerator()
        let request = STUNMessage(messageClass: .request, transactionID: .random(using: &random))
        let end = Instant.now() + timeout
        while Instant.now() < end {
            _ = try socket.send(request.encoded(), to: server)
            guard let bytes = receive(on: socket, from: server, timeout: .milliseconds(500)),
                let response = try? STUNMessage(decoding: bytes), response.transactionID == request.transactionID
            else { continue }
            return response.mappedAddress
        }
        return nil
    }

    /// Allocates on a TURN server over UDP and releases the allocation: the relayed and mapped addresses,
    /// or the client's typed error (a timeout after `timeout`).
    static func turnAllocation(_ configuration: TURNClientConfiguration, timeout: Duration = .seconds(5)) throws
        -> Result<(relayed: TransportAddress, mapped: TransportAddress?), TURNError>
    {
        let socket = try socket(toward: configuration.server)
        defer { socket.close() }
        var client = TURNClient(configuration: configuration)
        client.handle(.start, at: .now())
        let end = Instant.now() + timeout
        var outcome: Result<(relayed: TransportAddress, mapped: TransportAddress?), TURNError>?
        while outcome == nil, Instant.now() < end {
            while let output = client.pollOutput(at: .now()) {
                switch output {
                case .transmit(let bytes): _ = try socket.send(bytes, to: configuration.server)
                case .allocated(let relayed, let mapped, _): outcome = .success((relayed, mapped))
                case .failed(let error): outcome = .failure(error)
                default: break
                }
            }
            guard outcome == nil else { break }
            if let bytes = receive(on: socket, from: configuration.server, timeout: .milliseconds(50)) {
                client.handle(.received(bytes), at: .now())
            }
        }
        if case .success = outcome {
            client.handle(.deallocate, at: .now())
            while let output = client.pollOutput(at: .now()) {
                if case .transmit(let bytes) = output { _ = try? socket.send(bytes, to: configuration.server) }
            }
        }
        return outcome ?? .failure(.timeout(server: configuration.serverName, request: "Allocate"))
    }
}
