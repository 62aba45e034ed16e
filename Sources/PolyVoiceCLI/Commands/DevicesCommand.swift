// `polyvoice devices`: the audio devices PortAudio sees, to pick one for --input/--output.
import FoundationEssentials
import PolyAudio

extension Subcommand {
    static let devices = Subcommand(
        name: "devices",
        summary: "List audio input and output devices",
        help: """
            Usage: polyvoice devices [--json | --names]

            Lists the audio devices PortAudio finds (ALSA, PulseAudio/PipeWire through ALSA, OSS):
            id, name, host API, input and output channels, native sample rate, and which devices are
            the defaults. Choose one for a call with --input/--output ID or part of its name.

            Options:
              --json   Print a JSON array of devices instead of the table
              --names  Print each device name once, one a line (what shell completion offers)

            Examples:
              polyvoice devices
              polyvoice devices --json | jq '.[] | select(.maxInputChannels > 0) | .name'

            A machine without a sound card or sound server has no devices; for a virtual one run
              eval "$(bash scripts/pulse-null.sh start)"
            """,
        run: runDevices)
}

private func runDevices(_ arguments: [String]) throws -> Int32 {
    let parsed = try Arguments(arguments, valued: [], flagNames: ["json", "names"])
    guard parsed.positionals.isEmpty else {
        throw UsageError("unexpected argument '\(parsed.positionals[0])'")
    }
    let devices: [AudioDeviceInfo]
    do { devices = try AudioDevices.list() } catch {
        printError("polyvoice devices: \(error)")
        return ExitCode.media
    }
    if parsed.flag("names") {
        var seen = Set<String>()
        for device in devices where seen.insert(device.name).inserted { print(device.name) }
    } else if parsed.flag("json") {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(devices), as: UTF8.self))
    } else if devices.isEmpty {
        print(
            """
            No audio devices found (no sound card or sound server reachable).
            For a virtual device (PulseAudio null sink): eval "$(bash scripts/pulse-null.sh start)"
            """)
    } else {
        print(deviceTable(devices))
    }
    return ExitCode.ok
}

/// A fixed-width table: one row per device, defaults marked.
private func deviceTable(_ devices: [AudioDeviceInfo]) -> String {
    let header = ["ID", "NAME", "HOST API", "IN", "OUT", "RATE", "DEFAULT"]
    let rows = devices.map { device -> [String] in
        let defaults = [device.isDefaultInput ? "input" : nil, device.isDefaultOutput ? "output" : nil]
        return [
            String(device.id), device.name, device.hostAPI, String(device.maxInputChannels),
            String(device.maxOutputChannels), String(Int(device.defaultSampleRate.rounded())),
            defaults.compactMap { $0 }.joined(separator: ","),
        ]
    }
    let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
    return ([header] + rows).map { row in
        row.indices.map { row[$0].padded(to: widths[$0]) }
            .joined(separator: "  ").trimmingWhitespace()
    }.joined(separator: "\n")
}
