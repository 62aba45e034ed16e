// A config file whose keys are a command's own long options (`port = 8080` for --port 8080): how
// `polyvoice bridge --config /etc/polyvoice/bridge.conf` reads the service's settings.
enum OptionsFile {
    /// The file's settings as arguments to put *before* the command line's, so a flag given there wins
    /// (the parser keeps an option's last value). Flags take `true`/`yes` or `false`/`no`; a repeatable
    /// option (`turn`) may appear on several lines.
    static func arguments(from path: String, valued: Set<String>, flagNames: Set<String>) throws -> [String] {
        let settings: [ConfigSetting]
        do {
            guard let found = try ConfigFile.load(path, keys: valued.union(flagNames)) else {
                throw UsageError("--config '\(path)': no such file")
            }
            settings = found
        } catch let error as ConfigError {
            throw UsageError("\(error)")
        }
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
}
