import Foundation
import Testing
import TraitBridgePresentation

/// Lengths of time and clock times as the CLI's `history` and the web UI's timelines print them.
@Suite("Time in words")
struct TimeWordsTests {
    @Test("durations: seconds, minutes, hours, days; NaN, negative and infinite lengths never trap")
    func durations() {
        #expect(ValuePresenter.duration(44.6) == "45 s")
        #expect(ValuePresenter.duration(200) == "3 min 20 s")
        #expect(ValuePresenter.duration(7_500) == "2 h 5 min")
        #expect(ValuePresenter.duration(273_600) == "3 d 4 h")
        #expect(ValuePresenter.duration(.nan) == "0 s")
        #expect(ValuePresenter.duration(-5) == "0 s")
        #expect(ValuePresenter.duration(.infinity) == "11574074 d 1 h")
    }

    @Test("a clock time in the given time zone")
    func clock() {
        let date = Date(timeIntervalSince1970: 1_796_025_600)  // 2026-11-30T08:00:00Z
        #expect(ValuePresenter.clock(date, timeZone: TimeZone(identifier: "UTC")!) == "2026-11-30 08:00:00")
        #expect(ValuePresenter.clock(date, timeZone: TimeZone(secondsFromGMT: 3_600)!) == "2026-11-30 09:00:00")
    }
}
