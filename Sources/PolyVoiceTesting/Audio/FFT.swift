// A small radix-2 complex FFT, enough for cross-correlating test signals in O(n log n).
import Glibc

enum FFT {
    /// The smallest power of two ≥ `count`.
    static func size(atLeast count: Int) -> Int {
        var size = 1
        while size < count { size <<= 1 }
        return size
    }

    /// In-place transform of (`real`, `imag`), whose common length must be a power of two.
    /// The inverse transform is scaled by 1/n so that inverse(forward(x)) == x.
    static func transform(real: inout [Double], imag: inout [Double], inverse: Bool) {
        let n = real.count
        precondition(n == imag.count && n & (n - 1) == 0, "FFT length must be a power of two")
        real.withUnsafeMutableBufferPointer { re in
            imag.withUnsafeMutableBufferPointer { im in
                reorder(re, im)
                butterflies(re, im, inverse: inverse)
                if inverse {
                    let scale = 1 / Double(n)
                    for i in 0..<n {
                        re[i] *= scale
                        im[i] *= scale
                    }
                }
            }
        }
    }

    /// Bit-reversal permutation.
    private static func reorder(_ re: UnsafeMutableBufferPointer<Double>, _ im: UnsafeMutableBufferPointer<Double>) {
        let n = re.count
        var j = 0
        for i in 1..<max(n, 1) {
            var bit = n >> 1
            while j & bit != 0 {
                j ^= bit
                bit >>= 1
            }
            j |= bit
            if i < j {
                re.swapAt(i, j)
                im.swapAt(i, j)
            }
        }
    }

    private static func butterflies(
        _ re: UnsafeMutableBufferPointer<Double>, _ im: UnsafeMutableBufferPointer<Double>, inverse: Bool
    ) {
        let n = re.count
        var length = 2
        while length <= n {
            let angle = (inverse ? 2 : -2) * Double.pi / Double(length)
            let stepRe = cos(angle)
            let stepIm = sin(angle)
            for start in stride(from: 0, to: n, by: length) {
                var wRe = 1.0
                var wIm = 0.0
                for k in 0..<(length / 2) {
                    let a = start + k
                    let b = a + length / 2
                    let tRe = re[b] * wRe - im[b] * wIm
                    let tIm = re[b] * wIm + im[b] * wRe
                    re[b] = re[a] - tRe
                    im[b] = im[a] - tIm
                    re[a] += tRe
                    im[a] += tIm
                    let nextRe = wRe * stepRe - wIm * stepIm
                    wIm = wRe * stepIm + wIm * stepRe
                    wRe = nextRe
                }
            }
            length <<= 1
        }
    }
}
