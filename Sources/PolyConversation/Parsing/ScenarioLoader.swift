// Reading a scenario file: JSON or YAML by extension (or by content when the extension says neither).
import FoundationEssentials

public enum ScenarioLoader {
    /// Scenario files larger than this are refused before parsing.
    public static let maxFileSize = 4 << 20

    /// Loads and validates `path`; errors name the file, the line or key path, and what was expected.
    public static func load(path: String) throws(ScenarioError) -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScenarioError(file: path, line: nil, path: nil, message: "cannot read the file")
        }
        guard data.count <= maxFileSize else {
            throw ScenarioError(file: path, line: nil, path: nil, message: "larger than \(maxFileSize >> 20) MiB")
        }
        return try parse([UInt8](data), file: path)
    }

    /// Parses scenario text; `file` decides JSON (`.json`) or YAML (`.yaml`, `.yml`), else the content does.
    public static func parse(_ bytes: [UInt8], file: String) throws(ScenarioError) -> Scenario {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ScenarioError(file: file, line: nil, path: nil, message: "not UTF-8 text")
        }
        let lower = file.lowercased()
        let json: Bool
        if lower.hasSuffix(".json") {
            json = true
        } else if lower.hasSuffix(".yaml") || lower.hasSuffix(".yml") {
            json = false
        } else {
            json = text.first(where: { !$0.isWhitespace }) == "{"
        }
        let root: ScenarioNode
        if json {
            var parser = JSONScenarioParser(text, file: file)
            root = try parser.parse()
        } else {
            root = try YAMLScenarioParser.parse(text, file: file)
        }
        return try ScenarioDecoder.decode(root, file: file)
    }
}
