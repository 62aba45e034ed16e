// Netlink address changes that concern the call's media, as state-machine inputs.
import PolyNet
import Synchronization

/// Watches local addresses: removing an address the media uses is `localAddressRemoved`; a new
/// address appearing after that is `localAddressChanged` (ICE restart through the extension).
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
                        lost.value.store(true, ordering: .relaxed)
                        shell.send(.call(.localAddressRemoved))
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

    func stop() { monitor?.stop() }
}
