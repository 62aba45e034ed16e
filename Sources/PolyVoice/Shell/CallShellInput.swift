// Everything that reaches the call's serial driver, in arrival order.
import PolyCore

/// One item of the driver's input stream.
enum CallShellInput: Sendable {
    /// An input for the call-state machine.
    case call(CallInput)
    /// A deadline of the state machine may have passed.
    case tick
    /// An events socket update from socket generation `generation` (older sockets are ignored).
    case eventsOpened(generation: Int)
    case eventsDropped(generation: Int, code: Int)
    case eventsFrame(generation: Int, BridgeEvent)
}
