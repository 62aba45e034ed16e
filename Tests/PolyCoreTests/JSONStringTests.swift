// JSONString.quote against Foundation's JSON parser: whatever it writes parses back to the same text.
import Foundation
import PolyCore
import Testing

@Suite struct JSONStringTests {
    @Test func quotedTextParsesBackUnchanged() throws {
        let texts = ["", "plain", "a \"quoted\" \\ path", "line\nbreak\r\ttab", "\u{0}\u{1}\u{1f}", "é ✓ 🎙"]
        for text in texts {
            let quoted = JSONString.quote(text)
            let parsed = try JSONSerialization.jsonObject(with: Data(quoted.utf8), options: [.fragmentsAllowed])
            #expect(parsed as? String == text, "\(quoted)")
        }
        #expect(JSONString.quote("\u{1f}") == #""\u001f""#)
    }
}
