// A config file whose keys are a command's own long options (`port = 8080` for --port 8080): how
// `polyvoice bridge --config /etc/polyvoice/bridge.conf` reads the service's settings.
enum OptionsFile {
    /// The settings of the file at `path` (a usage error if it is missing or has a bad line).
    static func settings(from path: String, valued: Set<String>, flagNames: Set<String>) throws -> [ConfigSetting] {
        do {
            guard let found = try ConfigFile.load(path, keys: valued.union(flagNames)) else {
                throw UsageError("--config '\(path)': no such file")
            }
            return found
        } catch let error as ConfigError {
            throw UsageError("\(error)")
        }
    }

    /// Settings as arguments to put *before* the command line's, so a flag given there wins (the parser
    /// keeps an option's last value). Flags take `true`/`yes` or `false`/`no`; a repeatable option
    /// (`turn`) may appear on several lines.
    static func arguments(from settings: [ConfigSetting], flagNames: Set<String>) throws -> [String] {
        var arguments: [String] = []
        for setting in settings {
            guard flagNames.contains(setting.key) else {
                arguments += ["--\(setting.key)", setting.value]
                continue
            }
            switch setting.value.lowercased() {
            case "true", "yes": arguments.append("--\(setting.key)")
            case "false", "no": break
            default: throw UsageError("\(setting.source): '\(setting.key)' takes true or false, not '\(setting.value)'")
            }
        }
        return arguments
    }

    /// `error` about an option the file set and the command line did not, with the file and line to fix.
    static func attributed(_ error: UsageError, settings: [ConfigSetting], commandLine: Arguments) -> UsageError {
        let culprit = settings.last { setting in
            error.message.contains("--\(setting.key)") && commandLine.string(setting.key) == nil
                && !commandLine.flag(setting.key)
        }
        guard let culprit else { return error }
        return UsageError("\(error.message) (set by \(culprit.source))")
    }
}
