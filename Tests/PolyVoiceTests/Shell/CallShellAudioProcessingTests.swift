// The call's audio pipeline with a room in the loop: what the speaker plays comes back into the
// microphone delayed and attenuated; voice processing must keep that echo from reaching the far end.
import Foundation
import PolyAudio
import PolyCore
import PolyVoiceTesting
import Synchronization
import Testing

@testable import PolyVoice

@Suite("Call shell audio: echo cancellation in the call pipeline", .serialized)
struct CallShellAudioProcessingTests {
    static let rate = AudioFrameFormat.sampleRate
    static let frame = AudioFrameFormat.samplesPerFrame

    /// The agent talks (its audio played on the speaker and echoed by the room), then the caller talks
    /// alone. The call's source and sink are driven exactly as the media's 20 ms clock drives them
    /// (read the microphone frame to send, then write the frame played out). With processing on, the
    /// echo sent back to the agent must be at least 10 dB weaker than with it off, in the last 3 s of
    /// the agent's speech; the caller's own voice must still get through.
    @Test func echoSentToTheFarEndDropsWithProcessingOn() throws {
        let fixtures = try SpeechFixtures()
        let agent = try WAVFile.readPipelineSamples(
            from: fixtures.speech(.female, text: SpeechFixtures.sentences + " " + SpeechFixtures.sentences))
        let caller = try WAVFile.readPipelineSamples(from: fixtures.speech(.male))
        let farFrames = agent.count / Self.frame
        let nearFrames = caller.count / Self.frame

        let off = try Self.runCall(agent: agent, caller: caller, components: .none)
        let on = try Self.runCall(agent: agent, caller: caller, components: .all)
        let cancellerOnly = try Self.runCall(
            agent: agent, caller: caller,
            components: AudioProcessingOptions(echoCancellation: true, noiseSuppression: false, gainControl: false))

        let echoWindow = (farFrames * Self.frame - 3 * Self.rate)..<(farFrames * Self.frame)
        let echoReduction = Self.reductionDB(off.sent[echoWindow], on.sent[echoWindow])
        let cancellerReduction = Self.reductionDB(off.sent[echoWindow], cancellerOnly.sent[echoWindow])
        // The caller alone, skipping the first 200 ms (the room's echo tail).
        let nearStart = farFrames * Self.frame + Self.rate / 5
        let nearWindow = nearStart..<((farFrames + nearFrames) * Self.frame)
        let callerChange = Self.reductionDB(off.sent[nearWindow], on.sent[nearWindow])
        print(
            "Call pipeline, room echo 60 ms at -6 dB: echo sent to the far end \(String(format: "%.1f", echoReduction)) dB "
                + "lower with processing on (last 3 s of agent speech); caller's voice alone "
                + "\(String(format: "%+.1f", -callerChange)) dB; echo canceller alone (no noise suppression or "
                + "gain control) \(String(format: "%.1f", cancellerReduction)) dB; processed frames \(on.counters.processedFrames)"
        )
        #expect(farFrames * Self.frame > 8 * Self.rate)
        #expect(echoReduction >= 10, "echo reduced only \(echoReduction) dB")
        #expect(cancellerReduction >= 10, "the echo canceller alone reduced the echo only \(cancellerReduction) dB")
        // Gain control may lift the caller; suppression must not swallow them.
        #expect(callerChange <= 6, "caller's voice attenuated \(callerChange) dB")
        #expect(on.counters.isProcessingAudio && !off.counters.isProcessingAudio)
        #expect(on.counters.processedFrames == farFrames + nearFrames)
        #expect(off.counters.processedFrames == 0)
        #expect(on.counters.playedSamples == (farFrames + nearFrames) * Self.frame)
    }

    /// `.auto` processes only a device microphone with a device speaker; `.on` and `.off` are absolute.
    @Test func autoProcessesOnlyDevicePairs() {
        let file = URL(fileURLWithPath: "/tmp/x.wav")
        #expect(AudioProcessing.auto.components(input: .defaultDevice, output: .defaultDevice) == .all)
        #expect(AudioProcessing.auto.components(input: .device("usb"), output: .defaultDevice) == .all)
        #expect(AudioProcessing.auto.components(input: .defaultDevice, output: .file(file)) == .none)
        #expect(AudioProcessing.auto.components(input: .file(file, loop: false), output: .defaultDevice) == .none)
        #expect(AudioProcessing.auto.components(input: .null, output: .null) == .none)
        #expect(AudioProcessing.off.components(input: .defaultDevice, output: .defaultDevice) == .none)
        #expect(AudioProcessing.on.components(input: .null, output: .null) == .all)
    }

    struct Result {
        var sent: [Int16]
        var counters: CallAudioCounters
    }

    /// One call's audio with `components`: the agent's speech is played, then silence while the caller talks.
    static func runCall(agent: [Int16], caller: [Int16], components: AudioProcessingOptions) throws -> Result {
        let farFrames = agent.count / frame
        let nearFrames = caller.count / frame
        let room = EchoRoom(
            delay: 60 * rate / 1000, gain: 0.5,
            near: [Int16](repeating: 0, count: farFrames * frame) + caller[0..<(nearFrames * frame)])
        let audio = CallAudio(input: .null, output: .null, processing: .off, logger: quietLogger)
        try audio.install(source: room, sink: room, components: components)
        audio.meters.isCaptureOpen = true
        defer { audio.close() }
        var sent: [Int16] = []
        var send = [Int16](repeating: 0, count: frame)
        var play = [Int16](repeating: 0, count: frame)
        for index in 0..<(farFrames + nearFrames) {
            _ = send.withUnsafeMutableBufferPointer { audio.source.read(into: $0) }
            sent += send
            for sample in 0..<frame { play[sample] = index < farFrames ? agent[index * frame + sample] : 0 }
            play.withUnsafeBufferPointer { audio.sink.write($0) }
        }
        return Result(sent: sent, counters: audio.counters)
    }

    static let quietLogger = Logger(level: .error, sink: .handler { _ in }, redactor: Redactor())

    static func reductionDB(_ before: ArraySlice<Int16>, _ after: ArraySlice<Int16>) -> Double {
        func energy(_ samples: ArraySlice<Int16>) -> Double { samples.reduce(0) { $0 + Double($1) * Double($1) } }
        return 10 * log10(max(energy(before), 1) / max(energy(after), 1))
    }
}

/// A room: the microphone hears the speaker `delay` samples later at `gain` (plus a weaker reflection
/// 5 ms after), a quiet noise floor and the caller's `near` voice. Test double for both ends of a call.
final class EchoRoom: AudioFrameSource, AudioFrameSink, @unchecked Sendable {
    // @unchecked: driven from one thread by the test.
    private let delay: Int
    private let gain: Double
    private let near: [Int16]
    private var played: [Int16] = []
    private var position = 0
    private var random = SeededRandom(seed: 7)
    let name = "room"

    init(delay: Int, gain: Double, near: [Int16]) {
        self.delay = delay
        self.gain = gain
        self.near = near
    }

    var endOfStream: Bool { false }

    func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        for index in 0..<buffer.count {
            let time = position + index
            var value = random.normal(standardDeviation: 3) + (time < near.count ? Double(near[time]) : 0)
            value += gain * heard(time - delay) + 0.4 * gain * heard(time - delay - 240)
            buffer[index] = Int16(clamping: Int(value.rounded()))
        }
        position += buffer.count
        return buffer.count
    }

    private func heard(_ time: Int) -> Double { time >= 0 && time < played.count ? Double(played[time]) : 0 }

    func write(_ samples: UnsafeBufferPointer<Int16>) { played.append(contentsOf: samples) }

    func close() {}
}
