// The options a command's help text documents, read back from that text so completion scripts list
// exactly what `--help` shows (and cannot drift from it).

struct HelpOption: Equatable {
    let name: String
    /// The value's placeholder (URL, F, SRC…), nil for a flag.
    let metavar: String?
    let summary: String

    /// Takes a file name (F, FILE, DIR, FILE.wav).
    var takesPath: Bool { ["F", "FILE", "DIR", "CA"].contains(metavar ?? "") || metavar?.hasSuffix(".wav") == true }
    /// An audio endpoint: a device from `polyvoice devices`, a file, null or -.
    var takesAudioEndpoint: Bool { name == "--input" || name == "--output" }
}

enum HelpOptions {
    /// Every `--option` of `help`: from the option table (`  --name VALUE   text`) and the usage lines.
    static func options(in help: String) -> [HelpOption] {
        var found: [HelpOption] = []
        func add(_ option: HelpOption) {
            if !found.contains(where: { $0.name == option.name }) { found.append(option) }
        }
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingWhitespace()
            if trimmed.hasPrefix("Usage:") || trimmed.hasPrefix("polyvoice ") || trimmed.hasPrefix("[") {
                for option in usageOptions(trimmed) { add(option) }
            } else if line.hasPrefix("  "), let option = tableOption(trimmed) {
                add(option)
            }
        }
        // The table's entry (with its summary) replaces a bare usage mention.
        return found.map { option in
            guard option.summary.isEmpty else { return option }
            for line in help.split(separator: "\n") where line.hasPrefix("  ") {
                if let better = tableOption(line.trimmingWhitespace()), better.name == option.name {
                    return better
                }
            }
            return option
        }
    }

    /// `--name VALUE   summary` or `-h, --help   summary`.
    private static func tableOption(_ line: String) -> HelpOption? {
        var rest = Substring(line)
        if rest.hasPrefix("-"), rest.dropFirst().first?.isLetter == true, rest.dropFirst(2).hasPrefix(", ") {
            rest = rest.dropFirst(4)  // "-h, "
        }
        guard rest.hasPrefix("--"), rest.dropFirst(2).first?.isLetter == true else { return nil }
        let name = String(rest.prefix { !$0.isWhitespace && $0 != "=" })
        rest = rest.dropFirst(name.count)
        var metavar: String?
        if rest.first == " ", rest.dropFirst().first.map({ $0 != " " }) == true {
            let word = rest.dropFirst().prefix { !$0.isWhitespace }
            metavar = String(word)
            rest = rest.dropFirst(word.count + 1)
        }
        return HelpOption(name: name, metavar: metavar, summary: rest.trimmingWhitespace())
    }

    /// Options mentioned in a usage line: `--name`, `--name VALUE` or `[--name VALUE]`.
    private static func usageOptions(_ line: String) -> [HelpOption] {
        let words = line.split(separator: " ").map { $0.trimming { "[]()|.".contains($0) } }
        var options: [HelpOption] = []
        for (index, word) in words.enumerated() where word.hasPrefix("--") && word.count > 2 {
            let name = String(word.prefix { $0 != "=" })
            let next = index + 1 < words.count ? words[index + 1] : ""
            let metavar = !next.isEmpty && !next.hasPrefix("-") && next.uppercased() == next ? next : nil
            options.append(HelpOption(name: name, metavar: metavar, summary: ""))
        }
        return options
    }
}
