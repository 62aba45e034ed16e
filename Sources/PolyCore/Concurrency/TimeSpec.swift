// Seconds as the timespec the POSIX waits take (nanosleep, sigtimedwait).
import Glibc

extension timespec {
    /// `seconds` (≥ 0) split into whole seconds and nanoseconds.
    public init(seconds: Double) {
        self.init(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
    }
}
