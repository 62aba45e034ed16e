// One libwebsockets context and the thread that services it.
//
// Every lws call except `lws_cancel_service` happens on that thread. Other threads enqueue work with
// their owner and call `wake()`; the owner handles LWS_CALLBACK_EVENT_WAIT_CANCELLED on the service
// thread. (lws 4.1's `lws_service` ignores its timeout, so the wake is the only way to get its attention.)
import CWebSockets
import Dispatch
import PolyCore
import Synchronization

/// Receives the libwebsockets callbacks of one context, on its service thread.
protocol LWSCallbackTarget: AnyObject {
    func lwsCallback(
        wsi: OpaquePointer?, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
        input: UnsafeMutableRawPointer?, length: Int
    ) -> Int32
}

/// The C callback of every protocol we register: forwards to the context's `LWSCallbackTarget`.
private func lwsDispatch(
    wsi: OpaquePointer?, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
    input: UnsafeMutableRawPointer?, length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let raw = lws_context_user(context) else { return 0 }
    let box = Unmanaged<LWSTargetBox>.fromOpaque(raw).takeUnretainedValue()
    guard let target = box.target else { return 0 }
    return target.lwsCallback(wsi: wsi, reason: reason, user: user, input: input, length: length)
}

/// Holds the target weakly so a context never keeps its owner alive.
private final class LWSTargetBox {
    weak var target: (any LWSCallbackTarget)?
    init(_ target: any LWSCallbackTarget) { self.target = target }
}

/// Serialises context creation and destruction: lws (re)initialises process-wide TLS state there.
private let contextLifecycle = PlainLock()

/// A libwebsockets context with its own service thread.
final class LWSLoop: @unchecked Sendable {
    // @unchecked: `context` and the protocol table are written once in init; `stopping` is atomic.
    private let context: OpaquePointer
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let protocolName: UnsafeMutablePointer<CChar>
    private let box: Unmanaged<LWSTargetBox>
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    /// False once the context is being destroyed: guards `lws_cancel_service` from other threads.
    private let alive = Mutex<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)
    private let threadID = Mutex<pthread_t?>(nil)
    /// Something lws reads through a pointer for the context's lifetime (freed only after `destroy`).
    private let retained: (any Sendable)?

    /// Creates the context. `configure` fills in the rest of the creation info (port, TLS, options…).
    /// `tls` initialises OpenSSL for the context: it costs 100–200 ms here (lws loads the CA store),
    /// against under 1 ms without, so plain ws/http contexts go without.
    init(
        protocolName name: String, target: any LWSCallbackTarget, tls: Bool, retaining: (any Sendable)? = nil,
        configure: (inout lws_context_creation_info) -> Void
    ) throws(SignalingError) {
        retained = retaining
        pv_lws_silence_logs()
        protocolName = strdup(name)
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(protocolName)
        protocols[0].callback = lwsDispatch
        protocols[0].rx_buffer_size = 0
        box = Unmanaged.passRetained(LWSTargetBox(target))

        var info = lws_context_creation_info()
        info.protocols = UnsafePointer(protocols)
        info.gid = -1
        info.uid = -1
        info.user = box.toOpaque()
        if tls { info.options |= pv_lws_option_ssl_global_init() }
        configure(&info)
        let created = contextLifecycle.withLock { lws_create_context(&info) }
        guard let created else {
            box.release()
            free(protocolName)
            protocols.deallocate()
            throw .transport("cannot create the libwebsockets context (port in use or bad TLS files?)")
        }
        context = created
    }

    /// The listening port of a server context.
    var listenPort: Int { Int(pv_lws_listen_port(context)) }

    /// Runs `body` with the raw context (for client connects before `start`, or on the service thread).
    func withContext<R>(_ body: (OpaquePointer) -> R) -> R { body(context) }

    /// Starts a service thread.
    func start(name: String) {
        DetachedThread.start(name: name) { [self] in runOnCurrentThread() }
    }

    /// Services the context on the calling thread until `stop()`, then destroys it.
    func runOnCurrentThread() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        threadID.withLock { $0 = pthread_self() }
        while !stopping.load(ordering: .acquiring) {
            _ = lws_service(context, 0)
        }
        destroy()
        finished.signal()
    }

    /// Wakes the service thread (from any thread): it then sees LWS_CALLBACK_EVENT_WAIT_CANCELLED.
    func wake() {
        alive.withLock { alive in
            if alive { lws_cancel_service(context) }
        }
    }

    private func destroy() {
        alive.withLock { $0 = false }
        contextLifecycle.withLock { lws_context_destroy(context) }
        box.release()
        free(protocolName)
        protocols.deallocate()
    }

    /// Whether the caller runs on the service thread.
    var isServiceThread: Bool {
        threadID.withLock { id in id.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Asks the loop to end (connections are dropped as the context is destroyed).
    /// Waits for the thread to finish unless called from the service thread itself.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        guard started.exchange(true, ordering: .acquiringAndReleasing) else {
            destroy()  // never serviced: no thread to wait for
            return
        }
        wake()
        if !isServiceThread { finished.wait() }
    }
}
