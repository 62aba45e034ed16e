// A first-come first-served async mutex, used to serialise pull → renegotiate pairs.

/// One holder at a time; waiters are resumed in arrival order.
actor AsyncGate {
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Waits until the gate is free, then holds it.
    func enter() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Releases the gate, handing it to the next waiter if any.
    func leave() {
        if waiters.isEmpty {
            held = false
        } else {
            waiters.removeFirst().resume()
        }
    }

    /// Releases the gate if it is held (a renegotiate without a preceding pull is harmless).
    func leaveIfHeld() {
        if held { leave() }
    }
}
