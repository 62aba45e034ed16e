// A one-way flag (false → true) shareable by reference between a task, a pacing thread and callbacks.
import Synchronization

/// A flag that is raised once and read from any thread (release/acquire).
final class AtomicFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    var isRaised: Bool { raised.load(ordering: .acquiring) }

    func raise() { raised.store(true, ordering: .releasing) }
}
