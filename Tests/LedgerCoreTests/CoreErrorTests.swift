import LedgerCore
import Testing

/// The error shape every module shares (LedgerErrors), seen through the domain's error: what callers compare,
/// hash and print.
@Suite struct CoreErrorTests {
    struct Underlying: Error, Sendable, CustomStringConvertible {
        var description: String { "the record ends at byte 12" }
    }

    @Test func codesKeepTheirNames() {
        let names = [CoreError.Code.truncated, .malformed, .unsupportedVersion, .limitExceeded].map(\.description)
        #expect(names == ["truncated", "malformed", "unsupportedVersion", "limitExceeded"])
    }

    @Test func equalityAndHashingLookAtTheCodeOnly() {
        let short = CoreError(.truncated, "the tag is cut")
        let other = CoreError(.truncated, "the length is cut", cause: Underlying())
        #expect(short == other)
        #expect(short != CoreError(.malformed, "the tag is cut"))
        #expect(Set([short, other, CoreError(.malformed, "bad tag")]).count == 2)
        #expect(short.code == .truncated)
    }

    @Test func theDescriptionIsTheMessageThenTheCause() {
        #expect(CoreError(.malformed, "bad tag 9").description == "bad tag 9")
        #expect(
            CoreError(.truncated, "record 3 is cut", cause: Underlying()).description
                == "record 3 is cut (cause: the record ends at byte 12)")
    }

    @Test func anErrorRemembersWhereItWasRaised() {
        let line = #line + 1
        var error = CoreError(.limitExceeded, "too many subjects")
        #expect(error.file == #fileID && error.line == line && error.cause == nil)
        error.message = "far too many subjects"
        #expect(error.description == "far too many subjects" && error.code == .limitExceeded)
    }
}
