// libopus's float-to-Int16 output step, done in Swift so the common case skips a per-frame scan.
//
// libopus's Int16 `opus_decode` decodes to float, runs `opus_pcm_soft_clip` over the frame (keeping clip memory
// in the decoder), then converts each sample: scale by 32768, clamp to [-32768, 32767], round to nearest (ties to
// even, as `lrintf`). The soft clip only changes anything when its memory is non-zero or a sample lies outside
// ±1, which decoded speech almost never does; converting here lets us find that out in the conversion pass itself.

enum OpusSampleConversion {
    /// Converts `count` samples as libopus's Int16 decode does after its soft clip. Returns whether every
    /// sample was within ±1 (NaN counts as outside), i.e. whether a soft clip with zero memory would be a no-op.
    @inline(__always)
    static func convert(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Int16>, count: Int)
        -> Bool
    {
        // 1.5 × 2^23: adding it to a value within ±2^22 leaves the value rounded to an integer (to nearest, ties to
        // even, in the default rounding mode) in the low mantissa bits, as two's complement offset from this value.
        let roundingBias: Float = 12_582_912
        var outside: UInt32 = 0
        for index in 0..<count {
            let x = source[index]
            outside |= (x.bitPattern & 0x7fff_ffff) > 0x3f80_0000 ? 1 : 0  // |x| > 1 or NaN
            var scaled = x * 32768
            scaled = scaled > -32768 ? scaled : -32768  // the order of libopus's MAX32/MIN32 (NaN → -32768)
            scaled = scaled < 32767 ? scaled : 32767
            destination[index] = Int16(truncatingIfNeeded: (scaled + roundingBias).bitPattern)
        }
        return outside == 0
    }
}
