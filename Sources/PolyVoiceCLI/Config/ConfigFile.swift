// The `key = value` files behind the CLI's defaults (~/.config/polyvoice/config, /etc/polyvoice/config)
import FoundationEssentials
// and the bridge service's settings (/etc/polyvoice/bridge.conf). One syntax for all, errors name file and line.

/// One setting and where it was written, so `polyvoice doctor` can say which file set what.
struct ConfigSetting: Equatable, Sendable {
    let key: String
    let value: String
    let file: String
    let line: Int

    var source: String { "\(file):\(line)" }
}

/// A line that is not `key = value` with a known key: printed as `FILE:LINE: problem`.
struct ConfigError: Error, Equatable, CustomStringConvertible {
    let file: String
    let line: Int
    let problem: String

    var description: String { "\(file):\(line): \(problem)" }
}

enum ConfigFile {
    /// Parses `text`: blank lines and lines starting with '#' are skipped; every other line is
    /// `key = value` (spaces around both are trimmed; the value is the rest of the line, no quoting).
    static func parse(_ text: String, file: String, keys: Set<String>) throws(ConfigError) -> [ConfigSetting] {
        var settings: [ConfigSetting] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            let number = index + 1
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigError(file: file, line: number, problem: "expected 'key = value', found '\(line)'")
            }
            let key = line[..<equals].trimmingWhitespace()
            let value = line[line.index(after: equals)...].trimmingWhitespace()
            guard keys.contains(key) else {
                let known = keys.sorted().joined(separator: ", ")
                throw ConfigError(file: file, line: number, problem: "unknown key '\(key)' (known: \(known))")
            }
            guard !value.isEmpty else {
                throw ConfigError(file: file, line: number, problem: "'\(key)' has no value")
            }
            settings.append(ConfigSetting(key: key, value: value, file: file, line: number))
        }
        return settings
    }

    /// The settings of the file at `path`, or nil when there is no such file.
    static func load(_ path: String, keys: Set<String>) throws(ConfigError) -> [ConfigSetting]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigError(file: path, line: 0, problem: "cannot be read as UTF-8 text")
        }
        return try parse(text, file: path, keys: keys)
    }
}
