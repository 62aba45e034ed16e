// The five-line PolyVoice example: configure once, place a call, follow its states.
//
//   POLYVOICE_BRIDGE_URL=http://127.0.0.1:8080/ POLYVOICE_WEBRTC_TOKEN=… swift run SimpleCall
//
// Uses the default microphone and speaker (POLYVOICE_SAMPLE_AUDIO=null for none); hangs up after
// SIMPLECALL_SECONDS (default 5) connected.
import Foundation
import PolyVoice

let env = ProcessInfo.processInfo.environment
let bridge = URL(string: env["POLYVOICE_BRIDGE_URL"] ?? "http://127.0.0.1:8080/")!
let useDevices = env["POLYVOICE_SAMPLE_AUDIO"] != "null"

try PolyVoice.initialize(
    Configuration(
        apiKey: env["POLYVOICE_API_KEY"] ?? "sample", environment: .custom(bridge: bridge),
        webrtcToken: env["POLYVOICE_WEBRTC_TOKEN"]))
let call = try PolyVoice.call(
    options: VoiceOptions(input: useDevices ? .defaultDevice : .null, output: useDevices ? .defaultDevice : .null))
try await call.start()

let seconds = Double(env["SIMPLECALL_SECONDS"] ?? "5") ?? 5
for await state in call.states {
    print("call: \(state)")
    if state == .connected {
        Task {
            try await Task.sleep(for: .seconds(seconds))
            await call.end()
        }
    }
}
if case .failed = call.state { exit(1) }
