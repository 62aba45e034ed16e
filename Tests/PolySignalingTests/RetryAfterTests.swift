import Foundation
import Testing

@testable import PolySignaling

// Retry-After's HTTP-date form, parsed without Foundation's DateFormatter (the ground truth here is Python's
// calendar.timegm of the same dates).
@Suite struct RetryAfterTests {
    @Test func imfFixdatesGiveTheirSecondsSinceTheEpoch() {
        let cases: [(String, Double)] = [
            ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777), ("Tue, 29 Feb 2028 00:00:00 GMT", 1_835_395_200),
            ("Thu, 01 Jan 1970 00:00:00 GMT", 0), ("Mon, 01 Mar 2100 12:00:00 GMT", 4_107_585_600),
        ]
        for (text, seconds) in cases {
            #expect(RetryAfter.httpDate(text)?.timeIntervalSince1970 == seconds, "\(text)")
        }
    }

    @Test func aDateIsTheDelayFromNowAndThePastIsZero() {
        let now = Date(timeIntervalSince1970: 784_111_700)
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == .seconds(77))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: Date(timeIntervalSince1970: 1e9)) == .zero)
        #expect(RetryAfter.parse(" 12 ", now: now) == .seconds(12))
    }

    @Test func malformedDatesAreRefused() {
        for text in [
            "Sun, 06 Nov 1994 08:49:37 UTC", "Sun 06 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1994 08::37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "", "-5",
        ] {
            #expect(RetryAfter.parse(text, now: Date()) == nil, "\(text)")
        }
    }
}
