// The allocation's life: success, refresh timing, deallocation, and the one recovery from 437.
import PolyCore

extension TURNClient {
    /// When to refresh an allocation granted for `lifetime`: a minute early, or halfway for short lifetimes.
    static func refreshDelay(for lifetime: Duration) -> Duration {
        lifetime > .seconds(120) ? lifetime - .seconds(60) : lifetime / 2
    }

    mutating func allocated(_ message: STUNMessage, at now: Instant) {
        guard let relayed = message.xorRelayedAddress else {
            fail(.malformedResponse(server: server))
            return
        }
        let lifetime = message.lifetime.map { Duration.seconds(Int64($0)) } ?? configuration.requestedLifetime
        guard lifetime > .zero else {
            fail(.malformedResponse(server: server))
            return
        }
        relayedAddress = relayed
        mappedAddress = message.xorMappedAddress
        state = .allocated(relayed: relayed)
        refreshAt = now + Self.refreshDelay(for: lifetime)
        emit(.allocated(relayed: relayed, mapped: mappedAddress, lifetime: lifetime))
        // Permissions and channels asked for before (or lost with a previous allocation) are installed now.
        for ip in permissions.keys where permissions[ip]?.requesting == false {
            requestPermission(ip, at: now)
        }
        for peer in channels.keys where channels[peer]?.requesting == false {
            requestChannel(peer, at: now)
        }
    }

    mutating func refreshed(_ message: STUNMessage, at now: Instant) {
        let lifetime = message.lifetime.map { Duration.seconds(Int64($0)) } ?? configuration.requestedLifetime
        guard lifetime > .zero else {
            fail(.malformedResponse(server: server))
            return
        }
        refreshAt = now + Self.refreshDelay(for: lifetime)
    }

    mutating func deallocate(at now: Instant) {
        switch state {
        case .allocated:
            // Nothing else matters now: answers to other requests are ignored from here on.
            transactions.removeAll()
            refreshAt = nil
            for ip in permissions.keys { permissions[ip]?.refreshAt = nil }
            for peer in channels.keys { channels[peer]?.refreshAt = nil }
            state = .deallocating
            startRequest(.refresh, [.lifetime(0)], purpose: .deallocate, at: now)
        case .idle, .allocating:
            // An Allocate still in flight may leave an allocation behind; it expires with its lifetime.
            close()
        case .deallocating, .closed, .failed:
            break
        }
    }

    /// 437 (RFC 8656 §7.2, §7.3): to Allocate, a stale allocation holds our 5-tuple (clear it, then
    /// allocate); to anything else, the server lost our allocation (allocate again and reinstall the
    /// permissions and channels). Only once: a second 437 fails the client.
    mutating func allocationMismatch(_ transaction: TURNTransaction, at now: Instant) {
        guard !recoveredMismatch else {
            fail(.allocationMismatch(server: server))
            return
        }
        recoveredMismatch = true
        transactions.removeAll()
        refreshAt = nil
        relayedAddress = nil
        mappedAddress = nil
        state = .allocating
        for ip in permissions.keys {
            permissions[ip]?.installed = false
            permissions[ip]?.requesting = false
            permissions[ip]?.refreshAt = nil
        }
        for peer in channels.keys {
            channels[peer]?.bound = false
            channels[peer]?.requesting = false
            channels[peer]?.refreshAt = nil
        }
        if transaction.purpose == .allocate {
            startRequest(.refresh, [.lifetime(0)], purpose: .clearStale, at: now)
        } else {
            sendAllocate(at: now)
        }
    }
}
