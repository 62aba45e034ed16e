import Foundation
import PolyCore
import Testing

// The standard-library replacements for Foundation's string helpers, checked against Foundation itself
// (which the tests may link; the libraries do not).
@Suite struct TextTests {
    @Test func cFormatMatchesFoundationsFormatting() {
        #expect(String(cFormat: "%.1f ms", 2.25) == String(format: "%.1f ms", 2.25))
        #expect(String(cFormat: "%02ld:%02ld", 7, 5) == String(format: "%02ld:%02ld", 7, 5))
        #expect(String(cFormat: "%5.1f/%.0f s", 3.14159, 20.0) == String(format: "%5.1f/%.0f s", 3.14159, 20.0))
        #expect(String(cFormat: "loss %.1f%%", 12.34) == String(format: "loss %.1f%%", 12.34))
        #expect(String(cFormat: "%.6g", 1e-7) == String(format: "%.6g", 1e-7))
        #expect(String(cFormat: "%04X", UInt32(0xBEEF)) == String(format: "%04X", UInt32(0xBEEF)))
        #expect(String(cFormat: "%02x", UInt8(7)) == "07")
        #expect(String(cFormat: "%ld/%ld", -3, Int.max) == "-3/\(Int.max)")
    }

    @Test func cFormatGrowsPastItsFirstBuffer() {
        let long = String(cFormat: "%0200ld", 42)
        #expect(long.count == 200)
        #expect(long.hasSuffix("042") && long.hasPrefix("000"))
    }

    @Test func trimmingRemovesWhiteSpaceAndNewlinesAtBothEndsOnly() {
        #expect("  a b\t\r\n".trimmingWhitespace() == "a b")
        #expect(" \n ".trimmingWhitespace() == "")
        #expect("".trimmingWhitespace() == "")
        #expect("..a.b..".trimming { $0 == "." } == "a.b")
        #expect("[--name]".trimming { "[]".contains($0) } == "--name")
    }

    @Test func paddingFillsToTheWidthAndLeavesLongerTextAlone() {
        #expect("ab".padded(to: 5) == "ab   ")
        #expect("abcdef".padded(to: 3) == "abcdef")
    }

    @Test func percentEncodingKeepsOnlyUnreservedCharacters() {
        #expect("call-1_a.b~c".percentEncodedComponent() == "call-1_a.b~c")
        #expect("a/b c?é".percentEncodedComponent() == "a%2Fb%20c%3F%C3%A9")
        for text in ["a/b c?é", "%%", "", "日本語 + & = /"] {
            #expect(text.percentEncodedComponent().percentDecoded() == text)
        }
    }

    @Test func percentDecodingRefusesMalformedEscapesAndBadUTF8() {
        #expect("user%3Aname".percentDecoded() == "user:name")
        #expect("a%2".percentDecoded() == nil)
        #expect("a%zz".percentDecoded() == nil)
        #expect("%FF%FE".percentDecoded() == nil)
        #expect("plain+text".percentDecoded() == "plain+text")
    }
}
