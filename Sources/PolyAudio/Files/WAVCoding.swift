// WAV bytes ↔ WAVFile. Parsing trusts no length: every read goes through PolyCore's ByteReader.
import PolyCore

extension WAVFile {
    private static let formatPCM: UInt16 = 1
    private static let formatFloat: UInt16 = 3
    private static let formatExtensible: UInt16 = 0xFFFE

    /// Parses WAV bytes; `name` is the file name used in errors.
    public static func decode(_ bytes: [UInt8], name: String) throws(WAVError) -> WAVFile {
        func fail(_ problem: WAVError.Problem) -> WAVError { WAVError(file: name, problem: problem) }
        var reader = ByteReader(bytes)
        guard let riff = try? reader.readBytes(4), riff.elementsEqual("RIFF".utf8),
            (try? reader.skip(4)) != nil,  // RIFF size: often wrong in streamed files, not trusted
            let wave = try? reader.readBytes(4), wave.elementsEqual("WAVE".utf8)
        else { throw fail(.notRIFFWAVE) }

        var format: (code: UInt16, channels: Int, rate: Int, blockAlign: Int, bits: Int)?
        while reader.remaining >= 8 {
            guard let id = try? reader.readBytes(4), let size = try? reader.readUInt32LE() else { break }
            let chunk = String(decoding: id, as: UTF8.self)
            var declared = Int(size)
            if chunk == "data" {
                guard let format else { throw fail(.missingChunk("fmt ")) }
                // A stream (a pipe) says "unknown length" with all ones: the data is what follows.
                if size == 0xFFFF_FFFF { declared = reader.remaining / format.blockAlign * format.blockAlign }
                guard declared <= reader.remaining else {
                    throw fail(.truncatedData(declared: declared, available: reader.remaining))
                }
                guard declared % format.blockAlign == 0 else {
                    throw fail(
                        .truncatedData(declared: declared, available: declared / format.blockAlign * format.blockAlign))
                }
                // Safe: the length was checked against what remains.
                let payload = try! reader.readBytes(declared)
                return WAVFile(
                    sampleRate: format.rate, layout: format.channels == 2 ? .stereo : .mono,
                    samples: format.code == formatFloat ? .float32(floats(payload)) : .int16(int16s(payload)))
            }
            guard declared <= reader.remaining else {
                throw fail(.chunkPastEnd(chunk: chunk, declared: declared, available: reader.remaining))
            }
            var body = ByteReader(try! reader.readBytes(declared))
            if declared % 2 == 1 { try? reader.skip(1) }  // chunks are padded to even length
            if chunk == "fmt " { format = try parseFormat(&body, fail) }
        }
        throw fail(.missingChunk(format == nil ? "fmt " : "data"))
    }

    private static func parseFormat(
        _ body: inout ByteReader<ArraySlice<UInt8>>, _ fail: (WAVError.Problem) -> WAVError
    ) throws(WAVError) -> (code: UInt16, channels: Int, rate: Int, blockAlign: Int, bits: Int) {
        guard var code = try? body.readUInt16LE(), let channels = try? body.readUInt16LE(),
            let rate = try? body.readUInt32LE(), (try? body.skip(4)) != nil,  // byte rate: derived, not needed
            let blockAlign = try? body.readUInt16LE(), let bits = try? body.readUInt16LE()
        else { throw fail(.malformedFormat("\(body.bytes.count) bytes, at least 16 needed")) }
        if code == formatExtensible {
            // cbSize, valid bits, channel mask, then the sub-format GUID whose first 2 bytes are the code.
            guard (try? body.skip(8)) != nil, let subformat = try? body.readUInt16LE() else {
                throw fail(.malformedFormat("WAVE_FORMAT_EXTENSIBLE without its sub-format"))
            }
            code = subformat
        }
        switch (code, bits) {
        case (formatPCM, 16), (formatFloat, 32): break
        case (formatPCM, _): throw fail(.unsupportedFormat("\(bits)-bit PCM"))
        case (formatFloat, _): throw fail(.unsupportedFormat("\(bits)-bit float"))
        case (6, _): throw fail(.unsupportedFormat("A-law"))
        case (7, _): throw fail(.unsupportedFormat("μ-law"))
        case (2, _), (17, _): throw fail(.unsupportedFormat("ADPCM"))
        default: throw fail(.unsupportedFormat("format code \(code)"))
        }
        guard channels == 1 || channels == 2 else { throw fail(.unsupportedFormat("\(channels) channels")) }
        guard rate > 0 else { throw fail(.malformedFormat("sample rate 0")) }
        guard rate <= WAVFile.maxSampleRate else { throw fail(.unsupportedFormat("sample rate \(rate) Hz")) }
        guard Int(blockAlign) == Int(channels) * Int(bits) / 8 else {
            throw fail(.malformedFormat("block align \(blockAlign) for \(channels) × \(bits)-bit"))
        }
        return (code, Int(channels), Int(rate), Int(blockAlign), Int(bits))
    }

    private static func int16s(_ bytes: ArraySlice<UInt8>) -> [Int16] {
        let base = bytes.startIndex
        return (0..<(bytes.count / 2)).map { i in
            Int16(bitPattern: UInt16(bytes[base + 2 * i]) | UInt16(bytes[base + 2 * i + 1]) << 8)
        }
    }

    private static func floats(_ bytes: ArraySlice<UInt8>) -> [Float] {
        let base = bytes.startIndex
        return (0..<(bytes.count / 4)).map { i in
            var bits: UInt32 = 0
            for k in 0..<4 { bits |= UInt32(bytes[base + 4 * i + k]) << (8 * k) }
            return Float(bitPattern: bits)
        }
    }

    /// The file as WAV bytes (little-endian; float files carry the `fact` chunk the spec asks for).
    /// The bytes of values already in little-endian order (one copy, not an array per sample: a
    /// minute of stereo is 5.8 million samples).
    private static func littleEndianBytes<T: FixedWidthInteger>(_ values: [T]) -> [UInt8] {
        values.withUnsafeBytes { Array($0) }
    }

    public func encoded() -> [UInt8] {
        let isFloat: Bool
        let payload: [UInt8]
        switch samples {
        case .int16(let values):
            isFloat = false
            // Closures, not key paths: a key path here is interpreted per sample (seconds for a long call).
            payload = Self.littleEndianBytes(values.map { $0.littleEndian })
        case .float32(let values):
            isFloat = true
            payload = Self.littleEndianBytes(values.map { $0.bitPattern.littleEndian })
        }
        let bits = isFloat ? 32 : 16
        let blockAlign = layout.count * bits / 8
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 58)
        func append(_ text: String) { out += Array(text.utf8) }
        func append32(_ value: Int) { out += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func append16(_ value: Int) {
            out += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
        }
        let headerExtra = isFloat ? 2 + 12 : 0  // cbSize + fact chunk
        append("RIFF")
        append32(36 + headerExtra + payload.count + payload.count % 2)
        append("WAVE")
        append("fmt ")
        append32(isFloat ? 18 : 16)
        append16(Int(isFloat ? Self.formatFloat : Self.formatPCM))
        append16(layout.count)
        append32(sampleRate)
        append32(sampleRate * blockAlign)
        append16(blockAlign)
        append16(bits)
        if isFloat {
            append16(0)
            append("fact")
            append32(4)
            append32(samplesPerChannel)
        }
        append("data")
        append32(payload.count)
        out += payload
        return out
    }
}

extension ByteReader {
    /// WAV (RIFF) is little-endian; ByteReader reads network order, so swap.
    fileprivate mutating func readUInt16LE() throws(ByteReaderError) -> UInt16 { try readUInt16().byteSwapped }
    fileprivate mutating func readUInt32LE() throws(ByteReaderError) -> UInt32 { try readUInt32().byteSwapped }
}
