// Waiting for Ctrl-C / SIGTERM in long-running commands (bridge, impair).
import FoundationEssentials
import Glibc
import PolyCore

/// SIGINT and SIGTERM, held from the moment this is made until `wait` takes them. Make it first, before the
/// command starts threads (they inherit the blocked mask) and before it announces readiness ("listening on
/// …"): a signal sent as soon as that line appears stays pending for `wait` instead of being lost, which a
/// Dispatch signal source set up after the announcement allowed.
final class TerminationSignals {
    private var signals = sigset_t()

    init() {
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Blocks until SIGINT or SIGTERM has arrived (at any time since `init`), or `seconds` have passed.
    func wait(orSeconds seconds: Double? = nil) {
        let end = seconds.map { Date().addingTimeInterval($0) }
        while true {
            var timeout = timespec()
            if let end {
                let left = max(0, end.timeIntervalSinceNow)
                timeout = timespec(seconds: left)
            }
            let taken = end == nil ? sigwaitinfo(&signals, nil) : sigtimedwait(&signals, nil, &timeout)
            if taken >= 0 || errno != EINTR { return }  // a signal, or the time is up (EAGAIN)
        }
    }
}
