// Which config file set what: each file looked at, and each setting with the file and line it came from.
import FoundationEssentials

enum ConfigChecks {
    static let group = "Configuration"

    static func all(files: [String] = ClientDefaults.standardFiles()) -> [DoctorCheck] {
        let defaults: ClientDefaults
        do { defaults = try ClientDefaults.load(files: files) } catch {
            return [
                .problem(
                    group, "config file", required: true, "\(error)",
                    fix: "correct that line: key = value with a key from \(ClientDefaults.keys.sorted())")
            ]
        }
        let used = Set(defaults.settings.values.map(\.file))
        var checks = files.map { file in
            DoctorCheck.pass(group, file, used.contains(file) ? "read" : fileState(file))
        }
        for key in defaults.settings.keys.sorted() {
            let setting = defaults.settings[key]!
            checks.append(.pass(group, key, "\(setting.value) (set by \(setting.source))"))
        }
        return checks
    }

    private static func fileState(_ file: String) -> String {
        FileManager.default.fileExists(atPath: file) ? "read, sets nothing" : "not present"
    }
}
