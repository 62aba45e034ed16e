// Checks that a voice bridge answers: a short call with silence as the microphone, then its state and stats.
//
//   POLYVOICE_WEBRTC_TOKEN=… swift run EchoCheck http://127.0.0.1:8080/
import Foundation
import PolyVoice

let arguments = CommandLine.arguments
guard arguments.count == 2, let bridge = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: EchoCheck BRIDGE-URL (token in POLYVOICE_WEBRTC_TOKEN)\n".utf8))
    exit(2)
}
let config = Configuration(
    apiKey: "echo-check", environment: .custom(bridge: bridge),
    webrtcToken: ProcessInfo.processInfo.environment["POLYVOICE_WEBRTC_TOKEN"])
let call = try PolyVoice.call(config: config, options: VoiceOptions(input: .null, output: .null))
try await call.start()
for await state in call.states where state == .connected || state.isTerminal { break }
print("state: \(call.state)")
try await Task.sleep(for: .seconds(1))
let stats = await call.stats
await call.end()
print("packets sent: \(stats.outboundRtp.packetsSent), received: \(stats.inboundRtp.packetsReceived)")
exit(stats.inboundRtp.packetsReceived > 0 ? 0 : 1)
