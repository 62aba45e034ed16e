// Signal level of a block of PCM: RMS and peak relative to full scale.
import Glibc

/// RMS and peak of a block, in dBFS (0 dBFS = a full-scale square wave; a full-scale sine is −3.01).
public struct AudioLevel: Sendable, Equatable {
    /// Reported for digital silence instead of −∞.
    public static let floorDBFS: Double = -120

    /// Root-mean-square level in dBFS (≥ `floorDBFS`).
    public var rmsDBFS: Double
    /// Largest absolute sample in dBFS (≥ `floorDBFS`).
    public var peakDBFS: Double
    /// Largest absolute sample, linear 0...1.
    public var peak: Double

    public static let silence = AudioLevel(rmsDBFS: floorDBFS, peakDBFS: floorDBFS, peak: 0)

    public init(rmsDBFS: Double, peakDBFS: Double, peak: Double) {
        self.rmsDBFS = rmsDBFS
        self.peakDBFS = peakDBFS
        self.peak = peak
    }

    /// The level of a block whose squared samples sum to `sumOfSquares` (full scale = 1).
    @usableFromInline
    init(sumOfSquares: Double, count: Int, peak: Double) {
        let meanSquare = count > 0 ? sumOfSquares / Double(count) : 0
        self.init(rmsDBFS: Self.decibels(meanSquare.squareRoot()), peakDBFS: Self.decibels(peak), peak: peak)
    }

    @usableFromInline
    static func decibels(_ linear: Double) -> Double { linear > 0 ? max(20 * log10(linear), floorDBFS) : floorDBFS }
}

/// Measures blocks one at a time, and accumulates a running level over all blocks since `reset()`.
/// Allocation-free; a plain value, so each pipeline stage owns its own.
public struct LevelMeter: Sendable {
    @usableFromInline var sumOfSquares = 0.0
    @usableFromInline var count = 0
    @usableFromInline var maxPeak = 0.0

    public init() {}

    /// The level of one block (channels are measured together). Inlinable, like the sum below, so that
    /// callers in other modules get it specialised for their sample type (every frame of every call is
    /// measured; through the generic witness it cost more than the rest of the frame's bookkeeping).
    @inlinable
    public static func measure<S: PCMSample>(_ samples: UnsafeBufferPointer<S>) -> AudioLevel {
        let (sum, peak) = sumOfSquaresAndPeak(samples)
        return AudioLevel(sumOfSquares: sum, count: samples.count, peak: peak)
    }

    @inlinable
    static func sumOfSquaresAndPeak<S: PCMSample>(_ samples: UnsafeBufferPointer<S>) -> (Double, Double) {
        var sum = 0.0
        var peak: Float = 0
        for sample in samples {
            let value = sample.floatValue
            sum += Double(value * value)
            peak = max(peak, abs(value))
        }
        return (sum, Double(peak))
    }

    /// The level of an array (convenience).
    public static func measure<S: PCMSample>(_ samples: [S]) -> AudioLevel {
        samples.withUnsafeBufferPointer { measure($0) }
    }

    /// Adds a block to the running level and returns the block's own level.
    @inlinable @discardableResult
    public mutating func add<S: PCMSample>(_ samples: UnsafeBufferPointer<S>) -> AudioLevel {
        let (sum, peak) = Self.sumOfSquaresAndPeak(samples)
        sumOfSquares += sum
        count += samples.count
        maxPeak = max(maxPeak, peak)
        return AudioLevel(sumOfSquares: sum, count: samples.count, peak: peak)
    }

    /// The level of everything added since creation or `reset()`.
    public var level: AudioLevel { AudioLevel(sumOfSquares: sumOfSquares, count: count, peak: maxPeak) }

    public mutating func reset() { self = LevelMeter() }
}
