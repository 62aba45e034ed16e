// Where in the played audio a delay change goes unheard: a pause, not merely a quiet block.
//
// A stop consonant's closure or a soft syllable inside a word is as quiet as a pause for 20 ms, and a listener (and
// PESQ, which scores each utterance) hears a delay change there as much as in louder speech. Only audio that has
// stayed quiet for `pauseMilliseconds` is a pause between words or sentences.

/// Tells, block by block, whether decoded audio is in a pause; sans-IO.
struct PauseDetector {
    /// How long audio must have been quiet before the next quiet block counts as a pause.
    static let pauseMilliseconds = 60

    private let pauseSamples: Int
    private var quietRun = 0

    init(sampleRate: Int) { pauseSamples = sampleRate * Self.pauseMilliseconds / 1000 }

    /// Notes the next decoded block and returns whether it is in a pause: quiet (`TimeStretcher.isQuiet`) after at
    /// least `pauseMilliseconds` of quiet audio.
    mutating func isPause(_ block: UnsafeBufferPointer<Int16>) -> Bool {
        guard TimeStretcher.isQuiet(block) else {
            quietRun = 0
            return false
        }
        defer { quietRun += block.count }
        return quietRun >= pauseSamples
    }
}
