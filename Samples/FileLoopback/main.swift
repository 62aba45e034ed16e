// Sends a WAV file as the caller's voice, records what the agent says to another WAV, prints the stats.
//
//   POLYVOICE_BRIDGE_URL=http://127.0.0.1:8080/ POLYVOICE_WEBRTC_TOKEN=… swift run FileLoopback in.wav out.wav
import Foundation
import PolyVoice

let env = ProcessInfo.processInfo.environment
let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: FileLoopback INPUT.wav OUTPUT.wav\n".utf8))
    exit(2)
}
let config = Configuration(
    apiKey: env["POLYVOICE_API_KEY"] ?? "sample",
    environment: .custom(bridge: URL(string: env["POLYVOICE_BRIDGE_URL"] ?? "http://127.0.0.1:8080/")!),
    webrtcToken: env["POLYVOICE_WEBRTC_TOKEN"])
let options = VoiceOptions(
    input: .file(URL(fileURLWithPath: arguments[1]), loop: false), output: .file(URL(fileURLWithPath: arguments[2])))

// No global state: the configuration goes with the call.
let call = try PolyVoice.call(config: config, options: options)
try await call.start()
print("offer answered; waiting for the file to be sent")
while !call.isInputFinished, !call.state.isTerminal {
    try await Task.sleep(for: .milliseconds(100))
}
try await Task.sleep(for: .seconds(2))  // the agent's last words
let stats = await call.stats
await call.end()

print("final state: \(call.state)")
if let setup = await call.setupTime { print("setup: \(setup)") }
print("packets sent: \(stats.outboundRtp.packetsSent), received: \(stats.inboundRtp.packetsReceived)")
print(String(format: "jitter: %.1f ms, lost: %d", stats.inboundRtp.jitter * 1000, stats.inboundRtp.packetsLost))
if let rtt = stats.remoteInboundRtp.roundTripTime { print(String(format: "rtt: %.1f ms", rtt * 1000)) }
if let mos = call.quality.mos { print(String(format: "estimated MOS: %.2f", mos)) }
print("recorded: \(arguments[2])")
exit(call.state == .ended ? 0 : 1)
