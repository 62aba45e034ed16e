// A 3×5 pixel font for the labels on timeline PNGs: digits and the few letters the labels use
// (numbers of milliseconds and seconds). Everything else is in report.json.

enum BitmapFont {
    /// Rows top to bottom, 3 bits each (bit 2 = left column).
    static let glyphs: [Character: [UInt8]] = [
        "0": [7, 5, 5, 5, 7], "1": [2, 6, 2, 2, 7], "2": [7, 1, 7, 4, 7], "3": [7, 1, 3, 1, 7],
        "4": [5, 5, 7, 1, 1], "5": [7, 4, 7, 1, 7], "6": [7, 4, 7, 5, 7], "7": [7, 1, 1, 2, 2],
        "8": [7, 5, 7, 5, 7], "9": [7, 5, 7, 1, 7], "m": [0, 0, 7, 7, 5], "s": [0, 3, 6, 1, 6],
        ".": [0, 0, 0, 0, 2], "-": [0, 0, 7, 0, 0], " ": [0, 0, 0, 0, 0], "y": [0, 5, 7, 1, 6],
        "%": [5, 1, 2, 4, 5], "p": [0, 7, 5, 7, 4], "n": [0, 0, 6, 5, 5], "=": [0, 7, 0, 7, 0],
    ]

    /// Draws `text` with its top-left at (x, y), each font pixel `scale` image pixels; returns the width used.
    @discardableResult
    static func draw(_ text: String, into image: inout PNGImage, x: Int, y: Int, scale: Int = 2, color: RGB) -> Int {
        var cursor = x
        for character in text {
            let rows = glyphs[character] ?? glyphs[" "]!
            for (row, bits) in rows.enumerated() {
                for column in 0..<3 where bits & (4 >> UInt8(column)) != 0 {
                    image.fill(x: cursor + column * scale, y: y + row * scale, width: scale, height: scale, color)
                }
            }
            cursor += 4 * scale
        }
        return cursor - x
    }
}
