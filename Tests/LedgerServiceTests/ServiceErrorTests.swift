import LedgerService
import LedgerStore
import Testing

/// The service's error keeps what a log error meant: its class, its message, and its text as the cause.
@Suite struct ServiceErrorTests {
    @Test func aLogErrorKeepsItsMeaning() {
        let log = LogError(.noSpace, "append: no space left on device; free some space, then retry")
        let error = ServiceError(log)
        #expect(error.code == .storage && error.code.description == "storage")
        #expect(error.message == log.message && error.description == log.message)
        let cause: String? = error.cause
        #expect(cause == log.description)
    }

    @Test func codesAreComparedByNameOnly() {
        #expect(ServiceError(.conflict, "a void of a void") == ServiceError(.conflict, "another message"))
        #expect(ServiceError(LogError(.locked, "held")).code == .locked)
        #expect(ServiceError(LogError(.evidenceDamaged, "bad")).code == .damaged, "damage, whatever was damaged")
        #expect(ServiceError(LogError(.notWritable, "closed")).code == .other)
        #expect(LogError.Code.evidenceDamaged.description == "evidenceDamaged")
    }
}
