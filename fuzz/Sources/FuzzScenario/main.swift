// Fuzzes scenario loading (the JSON parser, libyaml through the YAML parser, the schema decoder): never
// trap, and every failure is a ScenarioError naming the file. The first byte picks JSON or YAML.
import PolyConversation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenario(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let file = data[0] & 1 == 0 ? "fuzz.json" : "fuzz.yaml"
    do {
        let scenario = try ScenarioLoader.parse(bytes, file: file)
        precondition(!scenario.steps.isEmpty, "a scenario without steps parsed")
        _ = ScenarioSupport.impairment(scenario.network, callSeed: scenario.seed, index: 1)
    } catch {
        precondition(error.file == file, "an error that does not name the file")
        _ = error.description
    }
    return 0
}
