// Text to caller speech with espeak-ng in process (no subprocess per turn; the library is loaded on first use,
// see CEspeakNG's shim.h). espeak-ng keeps global state and is not thread-safe, so every synthesis in the
// process runs one at a time behind one lock; scenarios synthesize before their calls start, never on the
// audio path, and each text is cached.
import CEspeakNG
import PolyAudio
import Synchronization

public struct SpeechError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { "speech: \(message)" }
}

/// Serialized espeak-ng synthesis to mono Int16 at any rate (resampled with the project's resampler).
public final class SpeechSynthesizer: Sendable {
    /// The process's one synthesizer (espeak-ng has one global engine).
    public static let shared = SpeechSynthesizer()

    private struct Key: Hashable {
        var text: String
        var voice: String
        var wordsPerMinute: Int
        var sampleRate: Int
    }

    private struct State {
        /// espeak's own rate once initialised, nil before, 0 when initialisation failed.
        var nativeRate: Int?
        var voice: String?
        var cache: [Key: [Int16]] = [:]
    }

    private let state = Mutex(State())

    private init() {}

    /// `text` spoken by `voice` at `wordsPerMinute`, mono at `sampleRate`, leading and trailing silence kept
    /// as espeak makes it. Blocks while another synthesis runs; cached per text, voice, rate.
    public func synthesize(_ text: String, voice: String, wordsPerMinute: Int = 175, sampleRate: Int = 48_000)
        throws(SpeechError) -> [Int16]
    {
        let key = Key(text: text, voice: voice, wordsPerMinute: wordsPerMinute, sampleRate: sampleRate)
        let result: Result<[Int16], SpeechError> = state.withLock { state in
            if let cached = state.cache[key] { return .success(cached) }
            do throws(SpeechError) {
                let native = try Self.initialise(&state)
                // The native synthesis is cached too, so one text has one length at every rate.
                let nativeKey = Key(text: text, voice: voice, wordsPerMinute: wordsPerMinute, sampleRate: 0)
                if let spoken = state.cache[nativeKey] {
                    let samples =
                        sampleRate == native ? spoken : try Self.resample(spoken, from: native, to: sampleRate)
                    state.cache[key] = samples
                    return .success(samples)
                }
                if state.voice != voice {
                    guard pv_espeak_SetVoiceByName(voice) == EE_OK else {
                        return .failure(SpeechError(message: "espeak-ng has no voice '\(voice)'"))
                    }
                    state.voice = voice
                }
                pv_espeak_SetParameter(espeakRATE, Int32(max(80, min(450, wordsPerMinute))), 0)
                var samples = try Self.run(text)
                state.cache[nativeKey] = samples
                if sampleRate != native { samples = try Self.resample(samples, from: native, to: sampleRate) }
                state.cache[key] = samples
                return .success(samples)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func initialise(_ state: inout State) throws(SpeechError) -> Int {
        if let rate = state.nativeRate {
            guard rate > 0 else { throw SpeechError(message: "espeak-ng could not be initialised") }
            return rate
        }
        guard pv_espeak_available() != 0 else {
            state.nativeRate = 0
            throw SpeechError(message: "cannot load libespeak-ng.so.1 (install the libespeak-ng1 package)")
        }
        let rate = Int(pv_espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 200, nil, 0))
        state.nativeRate = max(0, rate)
        guard rate > 0 else { throw SpeechError(message: "espeak-ng could not be initialised (no voice data?)") }
        pv_espeak_SetSynthCallback { wave, count, events in
            // Synchronous mode: called on this thread inside espeak_Synth; the collector rides in user_data.
            guard let events, let user = events.pointee.user_data else { return 0 }
            let collector = Unmanaged<SampleCollector>.fromOpaque(user).takeUnretainedValue()
            if let wave, count > 0 {
                collector.samples.append(contentsOf: UnsafeBufferPointer(start: wave, count: Int(count)))
            }
            return 0
        }
        return rate
    }

    private static func run(_ text: String) throws(SpeechError) -> [Int16] {
        let collector = SampleCollector()
        let bytes = Array(text.utf8) + [0]
        let status = bytes.withUnsafeBufferPointer { buffer in
            pv_espeak_Synth(
                buffer.baseAddress, buffer.count, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil,
                Unmanaged.passUnretained(collector).toOpaque())
        }
        withExtendedLifetime(collector) {}
        guard status == EE_OK else {
            throw SpeechError(message: "espeak-ng failed to speak (status \(status.rawValue))")
        }
        guard !collector.samples.isEmpty else {
            throw SpeechError(message: "espeak-ng produced no audio for '\(text)'")
        }
        return collector.samples
    }

    private static func resample(_ samples: [Int16], from input: Int, to output: Int) throws(SpeechError) -> [Int16] {
        do {
            let resampler = try Resampler(from: input, to: output)
            let converted = resampler.process(samples) + resampler.flush()
            // Drop the filter's delay so the speech keeps its position, and keep its exact length.
            let length = samples.count * output / input
            var aligned = Array(converted.dropFirst(resampler.outputLatency).prefix(length))
            aligned += [Int16](repeating: 0, count: length - aligned.count)
            return aligned
        } catch {
            throw SpeechError(message: "cannot resample speech from \(input) to \(output) Hz: \(error)")
        }
    }
}

/// Collects one synthesis's samples (touched only inside `pv_espeak_Synth`, under the lock).
private final class SampleCollector: @unchecked Sendable {
    var samples: [Int16] = []
}
