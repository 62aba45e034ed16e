// The Opus `a=fmtp` parameters a receiver asks its sender for (RFC 7587 §6.1), parsed leniently: network input,
// so unknown keys, bad values and odd spacing are ignored (the parameter is then as if absent), never an error.

/// What the far end's `a=fmtp` for Opus asks of the audio we send it (nil: not said, use our own choice).
public struct OpusFormatParameters: Hashable, Sendable {
    /// `maxaveragebitrate`: the most it wants to receive, bit/s (RFC 7587 allows 6000...510000; clamped).
    public var maxAverageBitrate: Int?
    /// `maxplaybackrate`: the highest rate it plays at, Hz (8000...48000; clamped). Coding more is wasted.
    public var maxPlaybackRate: Int?
    /// `sprop-maxcapturerate`: the highest rate it captures at, Hz: about its own stream (our decoder's input).
    public var maxCaptureRate: Int?
    /// `useinbandfec`: whether its decoder uses in-band FEC (false: our FEC bits would be wasted).
    public var inbandFEC: Bool?
    /// `usedtx`: whether it prefers DTX.
    public var dtx: Bool?
    /// `stereo`: whether it prefers stereo (false: code mono).
    public var stereo: Bool?

    public init(
        maxAverageBitrate: Int? = nil, maxPlaybackRate: Int? = nil, maxCaptureRate: Int? = nil,
        inbandFEC: Bool? = nil, dtx: Bool? = nil, stereo: Bool? = nil
    ) {
        self.maxAverageBitrate = maxAverageBitrate
        self.maxPlaybackRate = maxPlaybackRate
        self.maxCaptureRate = maxCaptureRate
        self.inbandFEC = inbandFEC
        self.dtx = dtx
        self.stereo = stereo
    }

    /// Parses the value after the payload type, e.g. `minptime=10;useinbandfec=1;maxplaybackrate=16000`.
    public init(parsing text: Substring) {
        self.init()
        for item in text.split(separator: ";", omittingEmptySubsequences: true).prefix(64) {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let key = pair[0].trimmingSpaces.lowercased()
            let value = pair[1].trimmingSpaces
            switch key {
            case "maxaveragebitrate": maxAverageBitrate = Self.number(value, in: 6000...510_000)
            case "maxplaybackrate": maxPlaybackRate = Self.number(value, in: 8000...48_000)
            case "sprop-maxcapturerate": maxCaptureRate = Self.number(value, in: 8000...48_000)
            case "useinbandfec": inbandFEC = Self.flag(value)
            case "usedtx": dtx = Self.flag(value)
            case "stereo": stereo = Self.flag(value)
            default: continue
            }
        }
    }

    /// A decimal (at most 9 digits, so it cannot overflow) clamped into `range`; nil if not a number.
    private static func number(_ text: Substring, in range: ClosedRange<Int>) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text)
        else { return nil }
        return min(max(value, range.lowerBound), range.upperBound)
    }

    /// RFC 7587 flags are `0` or `1`; anything else is as if absent.
    private static func flag(_ text: Substring) -> Bool? {
        switch text {
        case "1": true
        case "0": false
        default: nil
        }
    }
}

extension MediaDescription {
    /// The Opus `a=fmtp` parameters of this section's Opus payload type (all nil when it has none).
    public var opusFormatParameters: OpusFormatParameters {
        guard let pt = opusPayloadType, let fmtp = fmtp(pt) else { return OpusFormatParameters() }
        return OpusFormatParameters(parsing: Substring(fmtp))
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
