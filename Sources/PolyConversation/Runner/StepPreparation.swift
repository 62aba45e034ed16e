// Everything a scenario's calls send, made before the first call: speech synthesized (serialized, cached)
// and WAV files converted to 48 kHz mono, so no call does either on its audio path.
import FoundationEssentials
import PolyAudio

public enum StepPreparation {
    /// `play` paths are relative to `baseDirectory` (the scenario file's folder) unless absolute.
    public static func prepare(_ scenario: Scenario, baseDirectory: URL) throws(ScenarioError) -> [PreparedStep] {
        var prepared: [PreparedStep] = []
        for step in scenario.steps {
            switch step.action {
            case .say(let text), .backchannel(let text):
                do {
                    let audio = try SpeechSynthesizer.shared.synthesize(
                        text, voice: scenario.voice, wordsPerMinute: scenario.wordsPerMinute,
                        sampleRate: ConversationClock.sampleRate)
                    prepared.append(PreparedStep(step: step, audio: audio))
                } catch {
                    throw ScenarioError(file: scenario.sourceFile, line: nil, path: step.path, message: "\(error)")
                }
            case .play(let path):
                let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : baseDirectory.appendingPathComponent(path)
                do {
                    prepared.append(PreparedStep(step: step, audio: try WAVFile.readPipelineSamples(from: url)))
                } catch {
                    throw ScenarioError(
                        file: scenario.sourceFile, line: nil, path: step.path + ".play", message: "\(error)")
                }
            case .silence, .waitForAgent, .dtmf:
                prepared.append(PreparedStep(step: step))
            }
        }
        return prepared
    }
}
