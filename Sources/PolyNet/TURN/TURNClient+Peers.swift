// Peers: permissions per IP, channels per transport address, and outbound data as Send indications or
// ChannelData (RFC 8656 §9, §11, §12).
import PolyCore

extension TURNClient {
    /// The most application data one message can carry (16-bit lengths, with room for the STUN framing).
    static let maxDataLength = 0xFFFF - 64

    /// The channel bound to `peer`, once the server confirmed it.
    public func boundChannel(to peer: TransportAddress) -> UInt16? {
        guard let channel = channels[peer], channel.bound else { return nil }
        return channel.number
    }

    /// Whether the server confirmed a permission for `ip` (data to it is relayed without waiting).
    public func hasPermission(for ip: IPAddress) -> Bool { permissions[ip]?.installed == true }

    mutating func permit(_ ip: IPAddress, at now: Instant) {
        guard permissions[ip] == nil else { return }
        permissions[ip] = TURNPermission()
        if isAllocated { requestPermission(ip, at: now) }  // else installed once allocated
    }

    mutating func bindChannel(_ peer: TransportAddress, at now: Instant) {
        guard channels[peer] == nil else { return }
        guard ChannelData.validChannels.contains(nextChannel) else {
            emit(.channelBindFailed(peer, .noChannelsLeft(server: server)))
            return
        }
        channels[peer] = TURNChannel(number: nextChannel)
        peersByChannel[nextChannel] = peer
        nextChannel += 1
        if isAllocated { requestChannel(peer, at: now) }
    }

    mutating func send(_ bytes: [UInt8], to peer: TransportAddress, at now: Instant) {
        guard isAllocated, bytes.count <= Self.maxDataLength else { return }
        if let channel = channels[peer], channel.bound {
            let message = ChannelData(channel: channel.number, data: bytes)
            emit(.transmit(message.encoded(padded: configuration.transport == .stream)))
            return
        }
        if permissions[peer.ip]?.installed == true {
            emit(.transmit(sendIndication(bytes, to: peer)))
            return
        }
        // No permission yet: hold the data (bounded) until the server installed one.
        if permissions[peer.ip] == nil { permit(peer.ip, at: now) }
        if let queued = permissions[peer.ip]?.queued.count, queued < configuration.maxQueuedPerPeer {
            permissions[peer.ip]?.queued.append((bytes, peer))
        }
    }

    private mutating func sendIndication(_ bytes: [UInt8], to peer: TransportAddress) -> [UInt8] {
        let message = STUNMessage(
            method: .send, messageClass: .indication, transactionID: .random(using: &random),
            attributes: [.xorPeerAddress(peer), .data(bytes)])
        return message.encoded(fingerprint: configuration.fingerprint)
    }

    mutating func permissionInstalled(_ ip: IPAddress, at now: Instant) {
        guard var permission = permissions[ip] else { return }
        let first = !permission.installed
        permission.installed = true
        permission.requesting = false
        permission.refreshAt = now + configuration.permissionRefreshInterval
        let queued = permission.queued
        permission.queued = []
        permissions[ip] = permission
        if first { emit(.permissionCreated(ip)) }
        for item in queued { send(item.bytes, to: item.peer, at: now) }
    }

    mutating func channelInstalled(_ peer: TransportAddress, number: UInt16, at now: Instant) {
        guard var channel = channels[peer], channel.number == number else { return }
        let first = !channel.bound
        channel.bound = true
        channel.requesting = false
        channel.refreshAt = now + configuration.channelRefreshInterval
        channels[peer] = channel
        if first { emit(.channelBound(peer, channel: number)) }
        // ChannelBind also installs or refreshes the permission for the peer's IP (RFC 8656 §12.2); keep it
        // in the permission table so CreatePermission refreshes it every 4 minutes like the others.
        if permissions[peer.ip]?.installed == true {
            permissions[peer.ip]?.refreshAt = now + configuration.permissionRefreshInterval
        } else {
            if permissions[peer.ip] == nil { permissions[peer.ip] = TURNPermission() }
            permissionInstalled(peer.ip, at: now)
        }
    }

    mutating func permissionFailed(_ ip: IPAddress, _ error: TURNError) {
        guard permissions.removeValue(forKey: ip) != nil else { return }
        emit(.permissionFailed(ip, error))
    }

    mutating func channelBindFailed(_ peer: TransportAddress, _ error: TURNError) {
        guard let channel = channels.removeValue(forKey: peer) else { return }
        peersByChannel[channel.number] = nil
        emit(.channelBindFailed(peer, error))
    }
}
