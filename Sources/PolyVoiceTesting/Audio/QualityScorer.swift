// PESQ and STOI of a recording against its reference, via scripts/quality.py in the project's venv.
import FoundationEssentials

/// Perceptual scores of a degraded speech file against its reference (after alignment).
public struct QualityScore: Sendable, Equatable, Decodable {
    /// PESQ wideband MOS-LQO (about 1.0–4.64).
    public let pesqWideband: Double
    /// Short-time objective intelligibility (0–1), each 1 s of the reference scored against the degraded audio
    /// re-aligned within 300 ms of the global delay (a delay that moves during a call is not unintelligibility).
    public let stoi: Double
    /// STOI after the one global alignment (what `stoi` was before chunk re-alignment), for comparison.
    public let stoiGlobalAlignment: Double
    /// How late the degraded file is relative to the reference.
    public let delayMilliseconds: Double
    /// Length of the overlap that was scored.
    public let durationSeconds: Double

    enum CodingKeys: String, CodingKey {
        case pesqWideband = "pesq_wb"
        case stoi
        case stoiGlobalAlignment = "stoi_global"
        case delayMilliseconds = "delay_ms"
        case durationSeconds = "duration_s"
    }
}

/// Runs `.venv/bin/python scripts/quality.py REF DEG --json` and parses its answer.
public struct QualityScorer: Sendable {
    public let repositoryRoot: URL

    /// Finds the repository (the directory with Package.swift) from the current directory if not given.
    public init(repositoryRoot: URL? = nil) throws {
        self.repositoryRoot = try repositoryRoot ?? ExternalTool.repositoryRoot()
    }

    /// Scores `degraded` against `reference` (WAV files of any rate; scored at 16 kHz mono).
    public func score(reference: URL, degraded: URL, maxDelay: Duration = .seconds(2)) throws -> QualityScore {
        let python = repositoryRoot.appendingPathComponent(".venv/bin/python").path
        let script = repositoryRoot.appendingPathComponent("scripts/quality.py").path
        let output = try ExternalTool.run(
            python, [script, reference.path, degraded.path, "--json", "--max-delay", "\(maxDelay.inSeconds)"])
        return try JSONDecoder().decode(QualityScore.self, from: Data(output.utf8))
    }
}
