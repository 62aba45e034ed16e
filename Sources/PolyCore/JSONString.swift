// A JSON string literal, for the places that write JSON a line at a time (the bridge's JSON log lines, the
// conversation reports) instead of through an encoder.

public enum JSONString {
    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped.
    public static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += "\\u00" + hexByte(UInt8(c.value))
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func hexByte(_ value: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(value >> 4)], digits[Int(value & 0xF)]])
    }
}
