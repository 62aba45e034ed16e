// PROTOCOL.md "Errors": how signaling failures surface in the public API.
import PolySignaling

extension PolyError {
    /// The public error for a failed bridge request or events socket.
    init(_ error: SignalingError) {
        switch error {
        case .unauthorized: self = .auth(.unauthorized)
        case .callTokenRejected: self = .auth(.perCallTokenRejected)
        case .forbidden: self = .auth(.forbidden)
        case .signalingFailed(let message): self = .voice(.signalingFailed(message))
        case .transport(let message): self = .transport(message)
        case .malformedResponse, .invalidURL, .notProvisioned, .extensionUnavailable:
            self = .voice(.signalingFailed(error.description))
        }
    }

    /// The public error for anything thrown while running a call step.
    static func from(_ error: any Error, media: Bool) -> PolyError {
        switch error {
        case let error as PolyError: error
        case let error as SignalingError: PolyError(error)
        default: media ? .voice(.mediaFailed(String(describing: error))) : .transport(String(describing: error))
        }
    }
}
