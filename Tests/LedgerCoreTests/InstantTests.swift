import LedgerCore
import LedgerTesting
import Testing

@Suite("Instants and account tokens")
struct InstantTests {
    @Test(
        "ISO 8601 and millisecond inputs parse to the right instant",
        arguments: [
            ("2026-03-01T00:00:00Z", 1_772_323_200_000),
            ("2026-03-01T00:00:00.5Z", 1_772_323_200_500),
            ("2026-03-01T00:00:00.123456Z", 1_772_323_200_123),
            ("2026-03-01T01:00:00+01:00", 1_772_323_200_000),
            ("2026-02-28T19:00:00-0500", 1_772_323_200_000),
            ("2026-03-01", 1_772_323_200_000),
            ("2024-02-29T12:00:00z", 1_709_208_000_000),
            ("1970-01-01T00:00:00Z", 0),
            ("1969-12-31T23:59:59.999Z", -1),
            ("1772323200000", 1_772_323_200_000),
            ("-5", -5),
            ("253402300799999", 253_402_300_799_999),
            ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
            ("-62167219200000", -62_167_219_200_000),
            ("0000-01-01", -62_167_219_200_000),
        ] as [(String, Int64)])
    func parses(_ text: String, _ milliseconds: Int64) {
        #expect(Instant(parsing: text) == Instant(milliseconds: milliseconds))
    }

    @Test(
        "malformed times are rejected",
        arguments: [
            "", "now", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2025-02-29", "2026-03-01T24:00:00Z",
            "2026-03-01T00:60:00Z", "2026-03-01T00:00:00", "2026-03-01T00:00Z", "2026-03-01T00:00:00.Z",
            "2026-3-1", "2026-03-01T00:00:00Z ", "2026-03-01T00:00:00+25:00", String(repeating: "9", count: 80),
            // Outside the years 0000–9999: no input instant may overflow the arithmetic done on it.
            "253402300800000", "-62167219200001", "9223372036854775807", "-9223372036854775808",
            "0000-01-01T00:00:00+01:00", "9999-12-31T23:59:59.999-00:01",
        ])
    func rejects(_ text: String) {
        #expect(Instant(parsing: text) == nil)
    }

    @Test("formatting shows milliseconds only when present, and parses back")
    func formats() {
        #expect(Instant(milliseconds: 1_772_323_200_000).iso8601 == "2026-03-01T00:00:00Z")
        #expect(Instant(milliseconds: 1_772_323_200_050).iso8601 == "2026-03-01T00:00:00.050Z")
        #expect(Instant(milliseconds: -1).iso8601 == "1969-12-31T23:59:59.999Z")
        var random = SeededRandom(seed: 4)
        for _ in 0..<5_000 {
            // Years 0001 to 9999.
            let instant = Instant(
                milliseconds: Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &random))
            #expect(Instant(parsing: instant.iso8601) == instant, "\(instant.milliseconds)")
        }
    }

    @Test("periods add calendar months, clamping to the month's end")
    func calendar() {
        let jan31 = Instant(parsing: "2026-01-31T08:30:00Z")!
        #expect(jan31.adding(.monthly) == Instant(parsing: "2026-02-28T08:30:00Z"))
        #expect(Instant(parsing: "2024-01-31T08:30:00Z")!.adding(.monthly) == Instant(parsing: "2024-02-29T08:30:00Z"))
        #expect(jan31.adding(.semiannual) == Instant(parsing: "2026-07-31T08:30:00Z"))
        #expect(jan31.adding(.annual) == Instant(parsing: "2027-01-31T08:30:00Z"))
        #expect(jan31.adding(Period(named: "P1W")!) == Instant(parsing: "2026-02-07T08:30:00Z"))
        #expect(jan31.adding(.monthly, count: -2) == Instant(parsing: "2025-11-30T08:30:00Z"))
        #expect(Instant.distantFuture.adding(.monthly) == nil)
    }

    @Test("a user id as written has one spelling: digits, no sign, no leading zero, within 32 bits")
    func userIdText() {
        #expect(AccountToken.userId(text: "0") == 0)
        #expect(AccountToken.userId(text: "42") == 42)
        #expect(AccountToken.userId(text: "4294967295") == 4_294_967_295)
        for text in ["", "+1", "-1", "01", "007", "00", " 1", "1 ", "4294967296", "99999999999", "1e3", "0x1", "٤٢"] {
            #expect(AccountToken.userId(text: text) == nil, "\(text)")
        }
    }

    @Test("the app's token scheme maps user ids to tokens and back")
    func accountTokens() {
        #expect(AccountToken.token(forUser: 42) == "0000002a-0000-0000-0000-000000000000")
        #expect(AccountToken.token(forUser: 4_294_967_295) == "ffffffff-0000-0000-0000-000000000000")
        #expect(AccountToken.token(forUser: -1) == nil)
        #expect(AccountToken.token(forUser: 4_294_967_296) == nil)
        #expect(AccountToken.userId(fromToken: "0000002A-0000-0000-0000-000000000000") == 42)
        #expect(AccountToken.userId(fromToken: "0000002a-0000-0000-0000-000000000001") == nil)
        #expect(AccountToken.userId(fromToken: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f") == nil)
        #expect(
            AccountToken.canonical("6F1C2D3E-4B5A-4C6D-8E7F-9A0B1C2D3E4F") == "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f")
        #expect(
            AccountToken.canonical("6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f") == "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f")
        for bad in [
            "", "6f1c2d3e4b5a4c6d8e7f9a0b1c2d3e4f", "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4g",
            "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f0",
        ] {
            #expect(AccountToken.canonical(bad) == nil, "\(bad)")
        }
        for id in [Int64(0), 1, 42, 65_535, 4_294_967_295] {
            #expect(AccountToken.token(forUser: id).flatMap(AccountToken.userId(fromToken:)) == id)
        }
        #expect(Subject(appAccountToken: "0000002A-0000-0000-0000-000000000000").userId == 42)
    }
}
