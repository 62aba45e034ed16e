// Sans-IO liveness of every call: decides when a call ends (events socket gone, media stopped, never set up).
import PolyCore

/// Tracks each call's events socket and media activity and reports the calls that must end.
///
/// Rules (times are passed in):
/// - a new call must have media connected and its events socket opened within `setupTimeout`;
/// - once open, an events socket that drops must be reopened (and authenticated) within `resumeGrace`;
/// - once media is connected, a gap of `mediaTimeout` without packets ends the call;
/// - `hangUp` and `shutdown` end calls at once.
public struct CallReaper: Sendable {
    public struct Timeouts: Sendable, Equatable {
        public var setupTimeout: Duration
        public var resumeGrace: Duration
        public var mediaTimeout: Duration

        public init(
            setupTimeout: Duration = .seconds(30), resumeGrace: Duration = .seconds(10),
            mediaTimeout: Duration = .seconds(15)
        ) {
            self.setupTimeout = setupTimeout
            self.resumeGrace = resumeGrace
            self.mediaTimeout = mediaTimeout
        }
    }

    public enum Input: Sendable, Equatable {
        case provisioned(String)
        /// Media reported activity (a packet arrived / the session connected).
        case mediaActive(String)
        case eventsOpened(String)
        case eventsClosed(String)
        case hangUp(String)
        case shutdown
    }

    /// A call that must end now.
    public struct Ended: Sendable, Equatable {
        public var callID: String
        public var reason: CallEndReason
    }

    private struct Entry: Sendable {
        var created: Instant
        var lastMedia: Instant?
        var eventsOpen = false
        var eventsEverOpened = false
        var eventsClosedAt: Instant?
    }

    public let timeouts: Timeouts
    private var entries: [String: Entry] = [:]
    private var pending = OutputQueue<Ended>()
    /// No entry's deadline comes before this (nil: none can expire). Inputs only lower it; `expire` makes it
    /// exact again when it scans.
    private var expiryBound: Instant?

    public init(timeouts: Timeouts = Timeouts()) { self.timeouts = timeouts }

    public var activeCallIDs: [String] { Array(entries.keys) }

    public mutating func handle(_ input: Input, at now: Instant) {
        switch input {
        case .provisioned(let id):
            entries[id] = Entry(created: now)
            noteDeadline(of: id)
        case .mediaActive(let id):
            entries[id]?.lastMedia = now
            noteDeadline(of: id)
        case .eventsOpened(let id):
            entries[id]?.eventsOpen = true
            entries[id]?.eventsEverOpened = true
            entries[id]?.eventsClosedAt = nil
            noteDeadline(of: id)
        case .eventsClosed(let id):
            guard entries[id]?.eventsOpen == true else { return }
            entries[id]?.eventsOpen = false
            entries[id]?.eventsClosedAt = now
            noteDeadline(of: id)
        case .hangUp(let id):
            end(id, .hangUp)
        case .shutdown:
            for id in entries.keys.sorted() { end(id, .shutdown) }
        }
        expire(at: now)
    }

    /// The next call to end, if any (call until nil).
    public mutating func pollOutput(at now: Instant) -> Ended? {
        expire(at: now)
        return pending.next()
    }

    /// When the earliest deadline falls (nil with no calls).
    public func nextDeadline() -> Instant? {
        var earliest: Instant?
        for entry in entries.values { earliest.formEarliest(deadline(entry)) }
        return earliest
    }

    /// When `reason(entry, at:)` first becomes non-nil.
    private func deadline(_ entry: Entry) -> Instant? {
        var earliest: Instant?
        if entry.lastMedia == nil || !entry.eventsEverOpened {
            earliest = entry.created + timeouts.setupTimeout
        }
        if let closed = entry.eventsClosedAt { earliest.formEarliest(closed + timeouts.resumeGrace) }
        if let media = entry.lastMedia { earliest.formEarliest(media + timeouts.mediaTimeout) }
        return earliest
    }

    /// An input changed the entry: its deadline may now come before `expiryBound`.
    private mutating func noteDeadline(of id: String) {
        guard let entry = entries[id] else { return }
        expiryBound.formEarliest(deadline(entry))
    }

    private func reason(_ entry: Entry, at now: Instant) -> CallEndReason? {
        if let closed = entry.eventsClosedAt, now >= closed + timeouts.resumeGrace { return .eventsGone }
        if let media = entry.lastMedia, now >= media + timeouts.mediaTimeout { return .mediaTimeout }
        if entry.lastMedia == nil || !entry.eventsEverOpened, now >= entry.created + timeouts.setupTimeout {
            return .setupTimeout
        }
        return nil
    }

    /// Ends the calls due at `now`, in call-id order. Runs on every input and poll (the bridge feeds every
    /// call's media activity each reap tick), so it returns at once before `expiryBound` and otherwise scans
    /// without allocating unless a call is due.
    private mutating func expire(at now: Instant) {
        guard let bound = expiryBound, now >= bound else { return }
        var due: [(id: String, reason: CallEndReason)] = []
        var next: Instant?
        for (id, entry) in entries {
            if let reason = reason(entry, at: now) {
                due.append((id, reason))
            } else {
                next.formEarliest(deadline(entry))
            }
        }
        expiryBound = next
        due.sort { $0.id < $1.id }
        for call in due { end(call.id, call.reason) }
    }

    private mutating func end(_ id: String, _ reason: CallEndReason) {
        guard entries.removeValue(forKey: id) != nil else { return }
        pending.append(Ended(callID: id, reason: reason))
    }
}
