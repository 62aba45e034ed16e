// A minimal RGB image and PNG writer (zlib's compress2 for IDAT, crc32 for the chunks): timelines are
// drawn in Swift, with no Python or image library at run time.
import CZlib
import FoundationEssentials

public struct RGB: Sendable, Equatable {
    public var r: UInt8, g: UInt8, b: UInt8
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }
}

public struct PNGImage: Sendable {
    public let width: Int
    public let height: Int
    private(set) var pixels: [UInt8]

    public init(width: Int, height: Int, background: RGB = RGB(255, 255, 255)) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        fill(x: 0, y: 0, width: width, height: height, background)
    }

    public func pixel(x: Int, y: Int) -> RGB {
        let i = (y * width + x) * 3
        return RGB(pixels[i], pixels[i + 1], pixels[i + 2])
    }

    public mutating func set(x: Int, y: Int, _ color: RGB) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = (y * width + x) * 3
        pixels[i] = color.r
        pixels[i + 1] = color.g
        pixels[i + 2] = color.b
    }

    /// Fills the rectangle's part inside the image (nothing when it lies outside or is empty).
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, _ color: RGB) {
        let rows = max(0, y)..<max(max(0, y), min(height, y + h))
        let columns = max(0, x)..<max(max(0, x), min(width, x + w))
        for row in rows {
            for column in columns { set(x: column, y: row, color) }
        }
    }

    /// PNG bytes: 8-bit RGB, no interlace, filter 0 on every row.
    public func encoded() -> [UInt8] {
        var raw = [UInt8]()
        raw.reserveCapacity((width * 3 + 1) * height)
        for row in 0..<height {
            raw.append(0)
            raw += pixels[(row * width * 3)..<((row + 1) * width * 3)]
        }
        var bound = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(bound))
        let status = compressed.withUnsafeMutableBufferPointer { out in
            raw.withUnsafeBufferPointer { input in
                compress2(out.baseAddress, &bound, input.baseAddress, uLong(input.count), 6)
            }
        }
        precondition(status == Z_OK, "compress2 failed (\(status))")  // only on out-of-memory or a wrong bound
        compressed.removeSubrange(Int(bound)...)
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = [UInt8]()
        header += Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0]  // depth 8, RGB, deflate, filter 0, no interlace
        png += Self.chunk("IHDR", header)
        png += Self.chunk("IDAT", compressed)
        png += Self.chunk("IEND", [])
        return png
    }

    public func write(to url: URL) throws {
        try Data(encoded()).write(to: url)
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        let crc = typed.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        return bigEndian(UInt32(data.count)) + typed + bigEndian(UInt32(crc))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
