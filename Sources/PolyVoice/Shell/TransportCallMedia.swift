// The real media session of a call: PolyVoice's MediaTransport behind the CallMedia steps.

enum TransportCallMedia {
    static let factory: CallMediaFactory = { _ in
        throw PolyError.voice(.mediaFailed("no media engine in this build"))
    }
}
