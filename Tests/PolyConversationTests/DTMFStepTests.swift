// A `dtmf` step in the sans-IO script: it asks the shell once for the digits, keeps the caller silent for
// as long as the call takes to send them, then goes on; the shell's report of how they went lands on the step.
import Testing

@testable import PolyConversation

@Suite struct DTMFStepTests {
    @Test func aDTMFStepAsksOnceLastsItsDigitsAndRecordsTheMethod() {
        let steps = [
            PreparedStep(step: Step(.dtmf("12#"), path: "steps[0]")),
            PreparedStep(step: Step(.silence(seconds: 0.2), path: "steps[1]")),
        ]
        var script = ConversationScript(steps: steps)
        let size = ConversationClock.samplesPerFrame
        var frame = [Int16](repeating: 1, count: size)
        var requests: [DTMFRequest] = []
        var index = 0
        // Long enough for both steps and the tail.
        while !script.isFinished, index < 200 * size {
            frame.withUnsafeMutableBufferPointer { script.produce(into: $0, at: index) }
            #expect(frame.allSatisfy { $0 == 0 }, "the caller's own audio stays silent at \(index)")
            while let request = script.takeDTMFRequest() { requests.append(request) }
            index += size
        }
        #expect(requests == [DTMFRequest(step: 0, digits: "12#")])
        script.dtmfSent(step: 0, method: "rfc4733", failure: nil)
        let dtmf = script.outcomes[0]
        #expect(dtmf.dtmfMethod == "rfc4733" && dtmf.failure == nil)
        let lasted = (dtmf.endMs ?? 0) - (dtmf.startMs ?? 0)
        // Three digits of 260 ms, to the frame.
        #expect(abs(lasted - 3 * ConversationScript.dtmfDigitMs) <= 20, "\(lasted) ms")
        #expect(script.outcomes[1].startMs == dtmf.endMs)
        script.dtmfSent(step: 0, method: nil, failure: "DTMF was not sent: not connected")
        #expect(script.outcomes[0].failure == "DTMF was not sent: not connected")
    }
}
