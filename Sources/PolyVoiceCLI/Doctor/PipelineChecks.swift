// End-to-end checks that need no device: a tone through codec + lossy network + jitter buffer, and UDP on
// 127.0.0.1. Also the optional tools (espeak-ng, the venv's quality scorers).
import Glibc
import PolyAudio
import PolyCore
import PolyNet
import PolyVoiceTesting

enum PipelineChecks {
    static let group = "Media path"

    static func all() -> [DoctorCheck] { [toneLoopback(), udpLoopback()] }

    /// A 1 kHz tone through Opus with FEC, 5 % loss and the jitter buffer keeps its frequency and level.
    static func toneLoopback() -> DoctorCheck {
        let name = "File loopback"
        let tone = (0..<96000).map { Int16(8000 * sin(2 * Double.pi * 1000 * Double($0) / 48000)) }
        let configuration = LoopbackConfiguration(impairment: LinkImpairment(loss: .uniform(0.05)), seed: 1)
        let fix = "reinstall libopus (bash scripts/setup.sh) and report the bug with this output"
        do {
            let result = try LoopbackPipeline.process(tone, configuration: configuration)
            let middle = result.output[min(9600, result.output.count)..<min(86400, result.output.count)]
            let frequency = ToneAnalysis.dominantFrequency(middle, sampleRate: 48000)
            let level = LevelMeter.measure(Array(middle)).rmsDBFS
            let stats = result.statistics
            let detail = String(
                cFormat: "1000 Hz tone came back at %.1f Hz, %.1f dBFS (%ld/%ld packets lost, %ld FEC-recovered)",
                frequency, level, stats.packetsLost, stats.packetsSent, stats.fecRecovered)
            guard abs(frequency - 1000) < 10, level > -30 else {
                return .problem(group, name, required: true, detail, fix: fix)
            }
            return .pass(group, name, detail)
        } catch {
            return .problem(group, name, required: true, "\(error)", fix: fix)
        }
    }

    /// Two UDP sockets on 127.0.0.1 exchange a datagram.
    static func udpLoopback() -> DoctorCheck {
        let name = "UDP on 127.0.0.1"
        let fix = "the loopback interface must be up (ip link set lo up) and UDP allowed by the firewall"
        do {
            let any = TransportAddress(ip: .loopbackV4, port: 0)
            let receiver = try UDPSocket(bindingTo: any)
            let sender = try UDPSocket(bindingTo: any)
            defer {
                receiver.close()
                sender.close()
            }
            let payload = (0..<200).map { UInt8($0) }
            try sender.send(payload, to: receiver.localAddress)
            var buffer = [UInt8](repeating: 0, count: 1500)
            let deadline = Instant.now() + .seconds(1)
            while Instant.now() < deadline {
                let got = try buffer.withUnsafeMutableBytes { (bytes) throws(SocketError) in
                    try receiver.receive(into: bytes)
                }
                if let got {
                    guard Array(buffer.prefix(got.count)) == payload, got.source == sender.localAddress else {
                        return .problem(group, name, required: true, "datagram arrived altered", fix: fix)
                    }
                    return .pass(group, name, "\(sender.localAddress) → \(receiver.localAddress)")
                }
                usleep(1000)
            }
            return .problem(group, name, required: true, "nothing arrived within 1 s", fix: fix)
        } catch {
            return .problem(group, name, required: true, "\(error)", fix: fix)
        }
    }
}

enum ToolChecks {
    static let group = "Optional tools"

    static func all() -> [DoctorCheck] { [espeak(), qualityTools()] }

    /// espeak-ng makes the demo's and the tests' speech.
    static func espeak() -> DoctorCheck {
        guard let path = DoctorShell.find("espeak-ng"), let version = DoctorShell.run(path, ["--version"]) else {
            return .problem(
                group, "espeak-ng", required: false, "not found (the demo and tests generate speech with it)",
                fix: "apt-get install espeak-ng")
        }
        return .pass(group, "espeak-ng", version.split(separator: "\n").first.map(String.init) ?? path)
    }

    /// PESQ and STOI in the project's venv score loopback and call recordings.
    static func qualityTools() -> DoctorCheck {
        let name = "Quality tools (pesq, pystoi)"
        let fix = "bash scripts/setup.sh (creates .venv with scripts/requirements.txt)"
        guard let root = try? QualityScorer().repositoryRoot else {
            return .problem(group, name, required: false, "not in a PolyVoice checkout (no .venv)", fix: fix)
        }
        let python = root.appendingPathComponent(".venv/bin/python").path
        let probe = "import pesq, pystoi, numpy; print('numpy', numpy.__version__)"
        guard let output = DoctorShell.run(python, ["-c", probe], timeout: 20) else {
            return .problem(group, name, required: false, "\(python) cannot import pesq and pystoi", fix: fix)
        }
        return .pass(group, name, "\(python) (\(output.trimmingWhitespace()))")
    }
}
