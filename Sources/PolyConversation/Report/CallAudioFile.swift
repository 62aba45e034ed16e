// The stereo WAV of a call: caller as sent on the left, agent as heard on the right, 48 kHz, sample 0 = t 0,
// so anyone can check the report's turn edges against the audio.
import FoundationEssentials
import PolyAudio

public enum CallAudioFile {
    public static func write(sent: [Int16], heard: [Int16], to url: URL) throws(WAVError) {
        let count = max(sent.count, heard.count)
        var interleaved = [Int16](repeating: 0, count: count * 2)
        for i in 0..<sent.count { interleaved[2 * i] = sent[i] }
        for i in 0..<heard.count { interleaved[2 * i + 1] = heard[i] }
        try WAVFile(sampleRate: ConversationClock.sampleRate, layout: .stereo, samples: .int16(interleaved)).write(
            to: url)
    }
}
