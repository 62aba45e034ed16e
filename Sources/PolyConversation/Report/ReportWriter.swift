// `--report DIR`: report.json, then per call a stereo WAV and a timeline PNG, and one summary PNG.
import FoundationEssentials

public enum ReportWriter {
    /// Writes everything for one scenario's calls into `directory` (created); returns report.json's document.
    @discardableResult
    public static func write(scenario: Scenario, seed: UInt64, results: [CallResult], to directory: URL) throws
        -> JSONValue
    {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var calls: [JSONValue] = []
        for result in results {
            let audio = "call-\(result.call).wav"
            let timeline = "call-\(result.call)-timeline.png"
            try CallAudioFile.write(sent: result.sent, heard: result.heard, to: directory.appendingPathComponent(audio))
            try TimelinePlot.timeline(result).write(to: directory.appendingPathComponent(timeline))
            calls.append(ConversationReport.callJSON(result, audioFile: audio, timelineFile: timeline))
        }
        try TimelinePlot.summary(results).write(to: directory.appendingPathComponent("summary-latency.png"))
        let document = ConversationReport.document(scenario: scenario, seed: seed, calls: calls, results: results)
        try Data((document.text(pretty: true) + "\n").utf8).write(to: directory.appendingPathComponent("report.json"))
        return document
    }
}
