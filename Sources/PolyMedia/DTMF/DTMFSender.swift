// The digits a call sends, one 20 ms audio frame at a time (sans-IO: the endpoint asks once per frame).
// RFC 4733: each digit is one event on the audio stream's SSRC and sequence space, with the RTP timestamp
// of the frame it began in; the first packet carries the marker bit, each later frame an update with the
// duration so far, and the last frame's packet goes out three times with the end bit. No audio packet is
// sent while an event plays (the audio timestamp still advances). Without a negotiated telephone-event
// the same schedule mixes the digit's tone pair into the frames instead (in-band).

/// How DTMF digits reach the far end.
public enum DTMFMethod: String, Sendable, Equatable, Codable {
    /// RFC 4733 telephone-event packets (negotiated in SDP).
    case rfc4733
    /// The standard frequency pairs mixed into the sent audio.
    case inband
}

/// The queue and schedule of outgoing digits.
public struct DTMFSender: Sendable {
    /// What to do with one frame.
    public enum Action: Sendable, Equatable {
        /// Send the frame's audio as usual.
        case audio
        /// Send `copies` of this telephone-event packet instead of the frame's audio (3 for the end).
        case event(TelephoneEvent, timestamp: UInt32, marker: Bool, copies: Int)
        /// Mix the digit's tone into the frame; `frameIndex` counts frames since the tone began (for phase).
        case tone(DTMFDigit, frameIndex: Int)
    }

    private struct Entry: Sendable {
        var digit: DTMFDigit
        var method: DTMFMethod
        var frames: Int
        var gapFrames: Int
    }

    /// The pause between digits.
    public static let gap = Duration.milliseconds(100)
    /// Shortest and longest digit (the 16-bit duration field at 48 kHz holds 1.36 s; longer needs segments).
    public static let durations = Duration.milliseconds(40)...Duration.milliseconds(1000)

    private var queue: [Entry] = []
    private var head = 0
    private var current: (entry: Entry, frame: Int, timestamp: UInt32)?
    private var gapLeft = 0

    public init() { queue.reserveCapacity(64) }

    /// Nothing queued or playing.
    public var isIdle: Bool { current == nil && head >= queue.count && gapLeft == 0 }

    /// Queues `digits`, each `frames` frames long with `gapFrames` silent frames after it.
    public mutating func enqueue(_ digits: [DTMFDigit], method: DTMFMethod, frames: Int, gapFrames: Int) {
        if head >= queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        }
        for digit in digits {
            queue.append(Entry(digit: digit, method: method, frames: max(frames, 1), gapFrames: max(gapFrames, 0)))
        }
    }

    /// The action for the next frame, whose audio would carry `audioTimestamp`.
    public mutating func nextFrame(audioTimestamp: UInt32, samplesPerFrame: UInt32) -> Action {
        if current == nil {
            if gapLeft > 0 {
                gapLeft -= 1
                return .audio
            }
            guard head < queue.count else { return .audio }
            current = (queue[head], 0, audioTimestamp)
            head += 1
        }
        guard var playing = current else { return .audio }
        playing.frame += 1
        let done = playing.frame >= playing.entry.frames
        current = done ? nil : playing
        if done { gapLeft = playing.entry.gapFrames }
        switch playing.entry.method {
        case .rfc4733:
            let duration = UInt16(clamping: Int(samplesPerFrame) * playing.frame)
            return .event(
                TelephoneEvent(event: playing.entry.digit.event, end: done, duration: duration),
                timestamp: playing.timestamp, marker: playing.frame == 1, copies: done ? 3 : 1)
        case .inband:
            return .tone(playing.entry.digit, frameIndex: playing.frame - 1)
        }
    }
}
