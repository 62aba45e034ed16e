// A named POSIX thread for loops and watchdogs: Foundation's Thread without Foundation (docs/MEMORY.md).
import CLinux
import Glibc

public enum DetachedThread {
    /// Runs `body` on a new detached thread named `name` (the kernel keeps its first 15 bytes).
    public static func start(name: String? = nil, _ body: @escaping @Sendable () -> Void) {
        let work = Unmanaged.passRetained(Work(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(
            &thread, &attributes,
            { raw in
                let work = Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue()
                if let name = work.name {
                    _ = pv_set_thread_name(String(decoding: name.utf8.prefix(15), as: UTF8.self))
                }
                work.body()
                return nil
            }, work)
        // Only resource exhaustion fails here; Foundation's Thread.start traps too.
        precondition(result == 0, "pthread_create failed (\(result))")
    }

    /// Sleeps the calling thread (never a task of the cooperative pool).
    public static func sleep(seconds: Double) {
        var remaining = timespec(seconds: seconds)
        var request = remaining
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    private final class Work {
        let name: String?
        let body: @Sendable () -> Void
        init(name: String?, body: @escaping @Sendable () -> Void) { (self.name, self.body) = (name, body) }
    }
}
