// Silence in, nothing out: for calls that only listen or only speak, and for tests.

/// A source of endless silence.
public final class NullSource: AudioFrameSource {
    public init() {}
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        buffer.silence(from: 0)
        return 0
    }
    public var endOfStream: Bool { false }
    public var name: String { "null" }
    public func close() {}
}

/// A sink that drops everything.
public final class NullSink: AudioFrameSink {
    public init() {}
    public func write(_ samples: UnsafeBufferPointer<Int16>) {}
    public var name: String { "null" }
    public func close() {}
}
