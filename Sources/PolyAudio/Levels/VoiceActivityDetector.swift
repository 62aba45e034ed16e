// Is someone speaking? Frame energy against an adaptive noise floor, with a hangover so words stay whole.

/// Energy-based voice activity detection, fed one frame (e.g. 20 ms) at a time.
///
/// A frame is active when its RMS exceeds both an absolute threshold and the tracked noise floor by
/// a margin; activity then lasts `hangoverFrames` more frames, so pauses inside speech do not cut.
/// Before the first frame the background is taken to be quiet (the floor starts at the absolute threshold, or
/// the first frame's level if lower), so a talker heard from the very first frame is speech; a loud background
/// there reads as speech until the floor has climbed to it, as when a hum switches on later.
public struct VoiceActivityDetector: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Frames quieter than this are never speech.
        public var thresholdDBFS: Double
        /// How far above the noise floor a frame must be to count as speech.
        public var marginDB: Double
        /// Frames that stay active after the last loud one (15 × 20 ms = 300 ms).
        public var hangoverFrames: Int
        /// How fast the noise floor rises towards louder frames, in dB per frame (it falls at once).
        public var floorRiseDBPerFrame: Double

        public init(
            thresholdDBFS: Double = -50, marginDB: Double = 10, hangoverFrames: Int = 15,
            floorRiseDBPerFrame: Double = 0.1
        ) {
            self.thresholdDBFS = thresholdDBFS
            self.marginDB = marginDB
            self.hangoverFrames = hangoverFrames
            self.floorRiseDBPerFrame = floorRiseDBPerFrame
        }
    }

    public let configuration: Configuration
    /// The current estimate of the background level.
    public var noiseFloorDBFS: Double { floor ?? AudioLevel.floorDBFS }
    private var floor: Double?
    /// The decision for the last frame.
    public private(set) var isActive = false
    private var hangoverLeft = 0

    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// Classifies one frame; returns whether it is (or hangs over from) speech.
    @discardableResult
    public mutating func process<S: PCMSample>(_ frame: UnsafeBufferPointer<S>) -> Bool {
        process(level: LevelMeter.measure(frame))
    }

    /// Classifies one frame (convenience).
    @discardableResult
    public mutating func process<S: PCMSample>(_ frame: [S]) -> Bool {
        frame.withUnsafeBufferPointer { process($0) }
    }

    /// Classifies a frame whose level was already measured.
    @discardableResult
    public mutating func process(level: AudioLevel) -> Bool {
        let energy = level.rmsDBFS
        let current = floor ?? min(energy, configuration.thresholdDBFS)
        let loud = energy > configuration.thresholdDBFS && energy > current + configuration.marginDB
        // Track the floor: down at once, up slowly (so speech does not drag it up quickly).
        floor = energy < current ? energy : min(energy, current + configuration.floorRiseDBPerFrame)
        if loud {
            hangoverLeft = configuration.hangoverFrames
            isActive = true
        } else if hangoverLeft > 0 {
            hangoverLeft -= 1
            isActive = true
        } else {
            isActive = false
        }
        return isActive
    }

    public mutating func reset() { self = VoiceActivityDetector(configuration: configuration) }
}
