// Defaults for `call` and `doctor --network` from the system and user config files. Precedence, highest
// first: command-line flags, environment variables (POLYVOICE_WEBRTC_TOKEN), the user file, the system file.
import FoundationEssentials
import Glibc

struct ClientDefaults: Sendable {
    static let keys: Set<String> = ["bridge", "environment", "token-file", "input", "output"]

    /// The files looked at, lowest precedence first, whether or not they exist.
    let files: [String]
    /// The settings that apply, one per key, with where each came from.
    let settings: [String: ConfigSetting]

    /// `/etc/polyvoice/config` (or $POLYVOICE_SYSTEM_CONFIG) and `$XDG_CONFIG_HOME/polyvoice/config`
    /// (default `~/.config/polyvoice/config`).
    static func standardFiles(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let system = environment["POLYVOICE_SYSTEM_CONFIG"] ?? "/etc/polyvoice/config"
        let configHome =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.config")
        return [system, configHome + "/polyvoice/config"]
    }

    static func load(files: [String] = standardFiles()) throws(ConfigError) -> ClientDefaults {
        var settings: [String: ConfigSetting] = [:]
        for file in files {
            guard let found = try ConfigFile.load(file, keys: keys) else { continue }
            try Self.checkOneEndpoint(found)
            for setting in found {
                // bridge and environment say the same thing: a later file's either replaces an earlier one's.
                if setting.key == "bridge" || setting.key == "environment" {
                    settings["bridge"] = nil
                    settings["environment"] = nil
                }
                settings[setting.key] = Self.resolved(setting)
            }
        }
        return ClientDefaults(files: files, settings: settings)
    }

    func value(_ key: String) -> String? { settings[key]?.value }

    /// One file may name the bridge either way, not both.
    private static func checkOneEndpoint(_ settings: [ConfigSetting]) throws(ConfigError) {
        let endpoints = settings.filter { $0.key == "bridge" || $0.key == "environment" }
        guard endpoints.count > 1, let second = endpoints.dropFirst().first else { return }
        throw ConfigError(
            file: second.file, line: second.line,
            problem:
                "'\(second.key)' and '\(endpoints[0].key)' (line \(endpoints[0].line)) both name the bridge; keep one")
    }

    /// A relative token-file is relative to the config file, not to wherever the command runs.
    private static func resolved(_ setting: ConfigSetting) -> ConfigSetting {
        guard setting.key == "token-file", !setting.value.hasPrefix("/") else { return setting }
        let directory = URL(fileURLWithPath: setting.file).deletingLastPathComponent()
        return ConfigSetting(
            key: setting.key, value: directory.appendingPathComponent(setting.value).path, file: setting.file,
            line: setting.line)
    }
}

extension ClientDefaults {
    /// For a command: a bad config file is a usage error (exit 2) naming the file and line.
    static func loadForCommand() throws -> ClientDefaults {
        do { return try load() } catch { throw UsageError("\(error)") }
    }
}
