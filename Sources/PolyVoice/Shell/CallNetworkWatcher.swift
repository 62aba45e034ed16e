// Netlink address changes that concern the call's media, as state-machine inputs.
import PolyCore
import PolyNet
import Synchronization

/// Watches local addresses: removing an address the media uses is `localAddressRemoved`; if another usable
/// address is already there (a new one was added before the old one went, as DHCP renumbering and
/// `ip addr add`/`del` do) or one appears later, that is `localAddressChanged` (ICE restart through the
/// extension). The REST requests that follow need nothing renewed: `TLSHTTPTransport` opens a connection per
/// request, from whatever address the kernel picks then.
final class CallNetworkWatcher: Sendable {
    private let monitor: NetworkMonitor?
    /// Set when an address the media used went away, until a new address appears.
    private final class LostFlag: Sendable {
        let value = Atomic<Bool>(false)
    }

    init(shell: CallShell, logger: Logger) {
        let lost = LostFlag()
        do {
            monitor = try NetworkMonitor { change in
                switch change {
                case .addressRemoved(let address):
                    let ip = "\(address.ip)"
                    Task {
                        guard await shell.mediaUsesAddress(ip) else { return }
                        logger.info("local address \(ip) removed")
                        shell.send(.call(.localAddressRemoved))
                        if let other = Self.usableAddress(other: address.ip) {
                            logger.info("local address \(other) is there to move to")
                            shell.send(.call(.localAddressChanged))
                        } else {
                            lost.value.store(true, ordering: .relaxed)
                        }
                    }
                case .addressAdded(let address):
                    guard lost.value.exchange(false, ordering: .relaxed) else { return }
                    logger.info("local address \(address.ip) added after a loss")
                    shell.send(.call(.localAddressChanged))
                default: break
                }
            }
        } catch {
            logger.warn("network monitor unavailable: \(error)")
            monitor = nil
        }
    }

    /// A non-loopback, non-link-local address of an up interface other than `removed`, if there is one.
    private static func usableAddress(other removed: IPAddress) -> IPAddress? {
        let addresses = (try? LocalAddresses.enumerate()) ?? []
        return addresses.map(\.ip).first { $0 != removed && !$0.isLoopback && !$0.isLinkLocal }
    }

    func stop() { monitor?.stop() }
}
