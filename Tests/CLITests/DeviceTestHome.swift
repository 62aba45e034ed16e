// A fake home for `polyvoice` processes under test: no sound server, and an ALSA configuration of the test's own.
import Foundation

/// The current environment without any sound server or ALSA configuration of the test run, with `asoundrc`
/// (if given) as the only ALSA configuration besides the system's, and `HOME` and `XDG_RUNTIME_DIR` in a temporary
/// directory: the PulseAudio client writes its cookie under `HOME` and, without `XDG_RUNTIME_DIR`, makes a
/// `/tmp/pulse-*` directory that nothing removes. `remove()` deletes the directory.
struct DeviceTestHome {
    let directory: URL
    let environment: [String: String]

    init(asoundrc: String?) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pv-devices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = nil
        environment["ALSA_CONFIG_PATH"] = nil
        environment["HOME"] = directory.path
        let runtime = directory.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(
            at: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        environment["XDG_RUNTIME_DIR"] = runtime.path
        if let asoundrc {
            let file = directory.appendingPathComponent("asoundrc")
            try asoundrc.write(to: file, atomically: true, encoding: .utf8)
            environment["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:\(file.path)"
        }
        self.environment = environment
    }

    /// The ALSA configuration whose default pcm is the null device.
    static let nullDefault = "pcm.!default { type null }\n"

    func remove() { try? FileManager.default.removeItem(at: directory) }
}
