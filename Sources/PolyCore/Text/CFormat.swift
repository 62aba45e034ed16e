// printf-style number formatting through C's vsnprintf: the libraries import only FoundationEssentials, which
// has no String(format:) (that one brings all of Foundation and ICU into every polyvoice process).
import Glibc

extension String {
    /// `format` filled in by C's `vsnprintf`, e.g. `String(cFormat: "%.1f ms", 2.25)`.
    /// Numbers only: a Swift `String` is not a C vararg without Foundation.
    public init(cFormat format: String, _ arguments: any CVarArg...) {
        var buffer = [CChar](repeating: 0, count: 64)
        let needed = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        if needed >= buffer.count {
            buffer = [CChar](repeating: 0, count: Int(needed) + 1)
            _ = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        }
        self =
            needed < 0
            ? format : String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
