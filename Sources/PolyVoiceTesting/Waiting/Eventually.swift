// Bounded polling for real-socket tests, which need real time.

/// Polls `condition` every 10 ms for up to `timeout`; true as soon as it holds.
public func eventually(_ timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
