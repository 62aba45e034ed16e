// What this build can run: the schema parses `network` and `dtmf`, but their runners are not here yet,
// so a scenario that uses them is refused before anything is called rather than run without them.

public enum ScenarioSupport {
    /// Parts of `scenario` that cannot be run yet, with where they are in the file.
    public static func unsupported(_ scenario: Scenario) -> [ScenarioError] {
        var problems: [ScenarioError] = []
        if scenario.network != nil {
            problems.append(
                ScenarioError(
                    file: scenario.sourceFile, line: nil, path: "network",
                    message: "network impairment of the call's packets is not supported yet"))
        }
        for step in scenario.steps {
            if case .dtmf = step.action {
                problems.append(
                    ScenarioError(
                        file: scenario.sourceFile, line: nil, path: step.path, message: "DTMF is not supported yet"))
            }
        }
        return problems
    }
}
