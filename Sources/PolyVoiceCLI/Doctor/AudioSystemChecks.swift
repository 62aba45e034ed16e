// The audio system: PortAudio host APIs and devices, PulseAudio, ALSA's default pcm. All warnings, never
// failures: files, app buffers and bots work without any device.
import CPortAudio
import FoundationEssentials
import PolyAudio

enum AudioSystemChecks {
    static let group = "Audio system"
    static let virtualDevice = "for a virtual device: eval \"$(bash scripts/pulse-null.sh start)\""

    static func all() -> [DoctorCheck] {
        [hostAPIs()] + devices() + [pulseAudio(), alsaDefault()]
    }

    static func hostAPIs() -> DoctorCheck {
        guard (try? AudioDevices.list()) != nil else {
            return .problem(group, "Host APIs", required: false, "PortAudio did not start", fix: LibraryChecks.install)
        }
        let names = (0..<max(0, Int(Pa_GetHostApiCount()))).compactMap { index in
            Pa_GetHostApiInfo(PaHostApiIndex(index))?.pointee.name.map { String(cString: $0) }
        }
        guard !names.isEmpty else {
            return .problem(group, "Host APIs", required: false, "none", fix: "install libasound2 and portaudio19")
        }
        return .pass(group, "Host APIs", names.joined(separator: ", "))
    }

    static func devices() -> [DoctorCheck] {
        let devices = (try? AudioDevices.list()) ?? []
        guard !devices.isEmpty else {
            return [
                .problem(
                    group, "Devices", required: false, "none (no sound card or sound server reachable)",
                    fix: virtualDevice)
            ]
        }
        var checks: [DoctorCheck] = [.pass(group, "Devices", "\(devices.count) (see 'polyvoice devices')")]
        for direction in [AudioDirection.input, .output] {
            let name = direction == .input ? "Default input" : "Default output"
            if let device = try? AudioDevices.defaultDevice(for: direction) {
                checks.append(.pass(group, name, "\(device) at \(Int(device.defaultSampleRate)) Hz"))
            } else {
                checks.append(
                    .problem(
                        group, name, required: false, "none",
                        fix: "choose one with --\(direction.rawValue) DEVICE, or \(virtualDevice)"))
            }
        }
        return checks
    }

    static func pulseAudio() -> DoctorCheck {
        let server = ProcessInfo.processInfo.environment["PULSE_SERVER"]
        let via = server.map { "PULSE_SERVER=\($0)" } ?? "default socket"
        guard let pactl = DoctorShell.find("pactl") else {
            return .problem(
                group, "PulseAudio", required: false, "pactl not installed (\(via))",
                fix: "apt-get install pulseaudio-utils, or use ALSA devices directly")
        }
        guard let info = DoctorShell.run(pactl, ["info"]) else {
            return .problem(
                group, "PulseAudio", required: false, "not reachable (\(via))",
                fix: "start your desktop's sound server, or \(virtualDevice)")
        }
        let fields = Dictionary(
            info.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { return nil }
                return (String(parts[0]), parts[1].trimmingWhitespace())
            }, uniquingKeysWith: { first, _ in first })
        let name = fields["Server Name"] ?? "server"
        let sink = fields["Default Sink"] ?? "?"
        let source = fields["Default Source"] ?? "?"
        return .pass(group, "PulseAudio", "\(name) via \(via); default sink \(sink), source \(source)")
    }

    /// Opens ALSA's "default" pcm for playback (non-blocking) and reports what it is.
    static func alsaDefault() -> DoctorCheck {
        let config = ProcessInfo.processInfo.environment["ALSA_CONFIG_PATH"].map { " (ALSA_CONFIG_PATH=\($0))" } ?? ""
        var pcm: OpaquePointer?
        let result = snd_pcm_open(&pcm, "default", SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        guard result == 0, let pcm else {
            let reason = String(cString: snd_strerror(result))
            return .problem(
                group, "ALSA default pcm", required: false, "cannot open: \(reason)\(config)",
                fix: "set pcm.!default in ~/.asoundrc (e.g. type pulse), or \(virtualDevice)")
        }
        let type = snd_pcm_type_name(snd_pcm_type(pcm)).map { String(cString: $0) } ?? "unknown"
        snd_pcm_close(pcm)
        return .pass(group, "ALSA default pcm", "type \(type)\(config)")
    }
}
