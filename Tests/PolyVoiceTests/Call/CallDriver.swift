// Drives a CallStateMachine in virtual time and records what it outputs.
import PolyCore
import PolyVoice

struct CallDriver {
    var machine: CallStateMachine
    private(set) var now = Instant.zero
    /// Every state change with the virtual time it happened.
    private(set) var states: [(CallState, Instant)] = []
    /// Actions not yet taken by the test.
    private(set) var pending: [CallAction] = []
    /// Every output in order (for ordering assertions).
    private(set) var outputs: [CallOutput] = []

    init(policy: CallPolicy = CallPolicy(), seed: UInt64 = 7) {
        machine = CallStateMachine(policy: policy, seed: seed)
    }

    var state: CallState { machine.state }

    mutating func send(_ input: CallInput) {
        machine.handle(input, at: now)
        drain()
    }

    /// Advances virtual time to `end`, waking at every deadline on the way as a shell would.
    mutating func advance(by duration: Duration) {
        let end = now + duration
        while let deadline = machine.nextDeadline(), deadline <= end {
            now = max(now, deadline)
            drain()
        }
        now = end
        drain()
    }

    /// Advances time with inbound media reported every `interval` (a working network).
    mutating func flowMedia(for duration: Duration, every interval: Duration = .milliseconds(100)) {
        let end = now + duration
        while now + interval <= end {
            advance(by: interval)
            send(.mediaFlowing)
        }
        advance(by: end - now)
    }

    /// Returns and forgets the actions output so far.
    mutating func takeActions() -> [CallAction] {
        defer { pending.removeAll() }
        return pending
    }

    /// States output since `index`, without times.
    func stateList(from index: Int = 0) -> [CallState] { states[index...].map(\.0) }

    private mutating func drain() {
        while let output = machine.pollOutput(at: now) {
            outputs.append(output)
            switch output {
            case .stateChanged(let state): states.append((state, now))
            case .action(let action): pending.append(action)
            }
        }
    }

    /// Start → provisioned → offer answered → ICE → DTLS → pull → events open.
    mutating func connect(_ capabilities: BridgeCapabilities = BridgeCapabilities()) {
        send(.start)
        advance(by: .milliseconds(20))
        send(.provisioned(capabilities))
        advance(by: .milliseconds(30))
        send(.offerAnswered)
        send(.iceConnected)
        advance(by: .milliseconds(10))
        send(.dtlsConnected)
        if capabilities.hasPull {
            send(.pullOffered)
            send(.pullAnswered)
        }
        if capabilities.hasEvents { send(.eventsSocketOpened) }
        send(.mediaFlowing)
    }
}
