// Waiting for tasks with a time limit that holds even when they ignore cancellation.
import Synchronization

public enum BoundedWait {
    /// Waits until every task in `tasks` has ended or `limit` has passed, whichever comes first; returns whether
    /// they all ended.
    ///
    /// Not a task group: a group returns only once its children have, and a child awaiting another task's value
    /// goes on waiting when cancelled, so the limit would not hold for a task that ignores cancellation.
    @discardableResult
    public static func wait(for tasks: [Task<Void, Never>], atMost limit: Duration) async -> Bool {
        let outcome = FirstOutcome()
        return await withCheckedContinuation { continuation in
            outcome.arm(continuation)
            let timer = Task {
                try? await Task.sleep(for: limit)
                outcome.resume(false)
            }
            Task {
                for task in tasks { await task.value }
                timer.cancel()
                outcome.resume(true)
            }
        }
    }
}

/// Resumes its continuation with the first outcome offered; later ones are dropped.
private final class FirstOutcome: Sendable {
    private let continuation = Mutex<CheckedContinuation<Bool, Never>?>(nil)

    func arm(_ continuation: CheckedContinuation<Bool, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    func resume(_ value: Bool) {
        let waiting = continuation.withLock { stored in
            defer { stored = nil }
            return stored
        }
        waiting?.resume(returning: value)
    }
}
