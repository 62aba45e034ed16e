// A bot that talks and listens in code: PCM frames go in through an AsyncStream, the agent's audio comes
// out through another. It "says" three short tones and measures what it hears back.
//
//   POLYVOICE_BRIDGE_URL=http://127.0.0.1:8080/ POLYVOICE_WEBRTC_TOKEN=… swift run BufferBot
import Foundation
import PolyVoice

let env = ProcessInfo.processInfo.environment
let rate = 16_000
let (speech, mouth) = AsyncStream.makeStream(of: [Int16].self)
let (heard, ears) = AsyncStream.makeStream(of: [Int16].self)

let call = try PolyVoice.call(
    config: Configuration(
        apiKey: env["POLYVOICE_API_KEY"] ?? "sample",
        environment: .custom(bridge: URL(string: env["POLYVOICE_BRIDGE_URL"] ?? "http://127.0.0.1:8080/")!),
        webrtcToken: env["POLYVOICE_WEBRTC_TOKEN"]),
    options: VoiceOptions(input: .buffer(speech, sampleRate: rate), output: .buffer(ears, sampleRate: rate)))

// Listen: count the samples and the loudest 20 ms chunk.
let listener = Task {
    var samples = 0
    var loudest = 0.0
    for await chunk in heard {
        samples += chunk.count
        let energy = chunk.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, chunk.count))
        loudest = max(loudest, energy.squareRoot() / 32768)
    }
    return (samples, loudest)
}

try await call.start()
// Speak: three 0.5 s tones (440, 660, 880 Hz) with pauses, in 20 ms chunks paced in real time.
for frequency in [440.0, 660.0, 880.0] {
    for chunk in 0..<25 {
        let frame = (0..<(rate / 50)).map { index in
            let t = Double(chunk * rate / 50 + index) / Double(rate)
            return Int16(8000 * sin(2 * .pi * frequency * t))
        }
        mouth.yield(frame)
        try await Task.sleep(for: .milliseconds(20))
    }
    try await Task.sleep(for: .milliseconds(500))
}
mouth.finish()
try await Task.sleep(for: .seconds(1.5))
await call.end()

let (samples, loudest) = await listener.value
let level = 20 * log10(max(loudest, 1e-6))
print("final state: \(call.state)")
print(String(format: "heard %.1f s of audio, loudest 20 ms at %.1f dBFS", Double(samples) / Double(rate), level))
exit(call.state == .ended && samples > 0 ? 0 : 1)
