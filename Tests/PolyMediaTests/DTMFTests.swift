// DTMF pieces in virtual time: digits, the RFC 4733 payload, the per-frame schedule (start with marker,
// updates, three ends, same timestamp, gaps) and the receiver's deduplication.
import PolyCore
import Testing

@testable import PolyMedia

@Suite struct DTMFTests {
    @Test func digitsMapToEventCodesAndBadOnesAreNamed() throws {
        #expect(try DTMFDigit.parse("0123456789*#ABCD").map(\.event) == Array(0...15))
        #expect(DTMFDigit(event: 16) == nil)
        for (text, message) in [
            ("", "no digits to send"), ("12e", "'e' is not a DTMF digit (0-9, *, #, A-D)"),
            ("1a", "'a' is not a DTMF digit (0-9, *, #, A-D)"),
        ] {
            let error = #expect(throws: DTMFError.self) { try DTMFDigit.parse(text) }
            #expect(error?.description == message)
        }
        #expect(throws: DTMFError.self) { try DTMFDigit.parse(String(repeating: "1", count: 65)) }
    }

    @Test func telephoneEventPayloadRoundTripsAndShortPayloadsAreRejected() throws {
        var bytes = [UInt8](repeating: 0xEE, count: 4)
        bytes.withUnsafeMutableBytes {
            TelephoneEvent(event: 11, end: true, volume: 10, duration: 7680).write(into: $0)
        }
        #expect(bytes == [11, 0x8A, 0x1E, 0x00])
        let parsed = try bytes.withUnsafeBytes { try TelephoneEvent(parsing: $0) }
        #expect(parsed == TelephoneEvent(event: 11, end: true, volume: 10, duration: 7680))
        for count in 0..<4 {
            #expect(throws: ByteReaderError.self) {
                try bytes.withUnsafeBytes {
                    try TelephoneEvent(parsing: UnsafeRawBufferPointer(rebasing: $0[0..<count]))
                }
            }
        }
    }

    /// Runs the sender for `frames` frames from timestamp 1000, 960 per frame.
    static func schedule(_ sender: inout DTMFSender, frames: Int) -> [DTMFSender.Action] {
        (0..<frames).map { sender.nextFrame(audioTimestamp: 1000 + UInt32($0) * 960, samplesPerFrame: 960) }
    }

    @Test func eventsStartWithTheMarkerUpdateAndEndThreeTimesOnOneTimestamp() throws {
        var sender = DTMFSender()
        sender.enqueue(try DTMFDigit.parse("1#"), method: .rfc4733, frames: 4, gapFrames: 2)
        let actions = Self.schedule(&sender, frames: 12)
        let event = { (code: UInt8, end: Bool, frames: Int, timestamp: UInt32, marker: Bool) in
            DTMFSender.Action.event(
                TelephoneEvent(event: code, end: end, duration: UInt16(960 * frames)), timestamp: timestamp,
                marker: marker, copies: end ? 3 : 1)
        }
        #expect(actions[0] == event(1, false, 1, 1000, true))
        #expect(actions[1] == event(1, false, 2, 1000, false))
        #expect(actions[2] == event(1, false, 3, 1000, false))
        #expect(actions[3] == event(1, true, 4, 1000, false))
        #expect(actions[4] == .audio && actions[5] == .audio)
        // The next digit's timestamp is that of the frame it starts in.
        #expect(actions[6] == event(11, false, 1, 1000 + 6 * 960, true))
        #expect(actions[9] == event(11, true, 4, 1000 + 6 * 960, false))
        #expect(actions[10...].allSatisfy { $0 == .audio })
        #expect(sender.isIdle)
    }

    @Test func inBandDigitsCountTheirFrames() throws {
        var sender = DTMFSender()
        sender.enqueue(try DTMFDigit.parse("5"), method: .inband, frames: 3, gapFrames: 1)
        let five = try #require(DTMFDigit("5"))
        #expect(
            Self.schedule(&sender, frames: 5) == [
                .tone(five, frameIndex: 0), .tone(five, frameIndex: 1), .tone(five, frameIndex: 2), .audio, .audio,
            ])
    }

    @Test func theReceiverReportsEachDigitOnceEvenWhenEndsAreLost() {
        var receiver = TelephoneEventReceiver()
        var reported: [ReceivedDTMF] = []
        let feed = { (code: UInt8, end: Bool, duration: UInt16, timestamp: UInt32, ms: Int64) in
            receiver.receive(
                TelephoneEvent(event: code, end: end, duration: duration), timestamp: timestamp,
                at: .milliseconds(ms)
            ) { reported.append($0) }
        }
        // Digit 1: start, update, three ends (the 2nd and 3rd are duplicates), a late update.
        feed(1, false, 960, 100, 0)
        feed(1, false, 1920, 100, 20)
        feed(1, true, 2880, 100, 40)
        feed(1, true, 2880, 100, 40)
        feed(1, true, 2880, 100, 41)
        feed(1, false, 1920, 100, 45)
        #expect(reported == [ReceivedDTMF(digit: DTMFDigit("1")!, durationSamples: 2880, start: .milliseconds(0))])
        // Digit 9's ends are all lost: it is reported when digit * begins.
        feed(9, false, 960, 5000, 200)
        feed(9, false, 1920, 5000, 220)
        feed(10, false, 960, 9000, 400)
        #expect(reported.last == ReceivedDTMF(digit: DTMFDigit("9")!, durationSamples: 1920, start: .milliseconds(200)))
        feed(10, true, 960, 9000, 420)
        #expect(reported.map(\.digit.description) == ["1", "9", "*"])
        // Events above 15 (flash, tones) are not DTMF.
        feed(16, true, 960, 12000, 500)
        #expect(reported.count == 3)
    }
}
