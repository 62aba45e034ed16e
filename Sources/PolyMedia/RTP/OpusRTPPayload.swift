// RFC 7587 rules for carrying Opus over RTP.

/// The Opus RTP payload format (RFC 7587).
///
/// - The RTP clock is always 48 kHz, whatever rate the codec runs at internally (§4.1).
/// - Each RTP packet carries exactly one Opus packet (§4.2); the payload is the Opus packet as is.
/// - The marker bit is set on the first packet of a talkspurt, i.e. after a DTX pause (§4.1):
///   `RTPOutgoingStream.skipFrame(samples:)` records a pause so the next packet gets the marker.
public enum OpusRTPPayload {
    /// The RTP timestamp clock rate for Opus.
    public static let clockRate: UInt32 = 48_000

    /// RTP timestamp units in one frame of the given length (e.g. 960 for 20 ms).
    public static func timestampIncrement(frameMilliseconds: Double) -> UInt32 {
        UInt32((frameMilliseconds * Double(clockRate) / 1000).rounded())
    }

    /// Whether an encoder output is a DTX frame (libopus emits at most 2 bytes then), which a
    /// sender need not transmit.
    public static func isDiscontinuousTransmissionFrame(byteCount: Int) -> Bool { byteCount <= 2 }

    /// The largest payload a 20 ms Opus packet may need (RFC 6716: at most 1275 bytes per frame).
    public static let maximumPacketSize = 1275
}
