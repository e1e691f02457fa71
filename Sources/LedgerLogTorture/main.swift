// The crash test's two halves (see Scripts/crash-test).
//
//   LedgerLogTorture write DIR ROUND THREADS   appends forever from THREADS threads, printing "ack SEQ KEY" on
//                                              stdout after each append returns (i.e. once it is durable)
//   LedgerLogTorture check DIR ACKS            opens DIR as the writer (recovering from the crash), then checks
//                                              that every acknowledged record is there, verify passes and the
//                                              seqs are gap-free
import LedgerLog
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a line to stdout with one write(2), so a SIGKILL never leaves a half-printed acknowledgement
/// that looks whole.
func emit(_ line: String) {
    var bytes = Array(line.utf8)
    bytes.append(10)
    _ = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    emit("FAIL \(message)")
    exit(1)
}

/// Small segments so that crashes also land while a segment is being rolled.
let options = LogOptions(segmentSize: 256 * 1024, checkpointInterval: 5_000)

func write(directory: String, round: Int, threads: Int) {
    let log: EventLog
    do {
        log = try EventLog.openWriter(at: directory, environment: "sandbox", options: options)
    } catch {
        fail("open: \(error)")
    }
    emit("open head=\(log.head.seq)")
    final class Worker: @unchecked Sendable {
        // Sendable: immutable after init.
        let log: EventLog
        let round: Int
        let index: Int
        init(log: EventLog, round: Int, index: Int) {
            self.log = log
            self.round = round
            self.index = index
        }
        func run() {
            var random = SystemRandomNumberGenerator()
            var n = 0
            while true {
                let batch = Int.random(in: 1...20, using: &random)
                var entries: [LogEntry] = []
                for _ in 0..<batch {
                    n += 1
                    let size = Int.random(in: 0...900, using: &random)
                    entries.append(
                        LogEntry(
                            idempotencyKey: "r\(round)-t\(index)-\(n)",
                            subjectKeys: ["user:\(n % 97)", "thread:\(index)"],
                            payload: (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ n) }))
                }
                do {
                    let outcomes = try log.append(entries)
                    var text = ""
                    for (entry, outcome) in zip(entries, outcomes) {
                        text += "ack \(outcome.seq) \(entry.idempotencyKey)\n"
                    }
                    text.removeLast()
                    emit(text)
                } catch {
                    fail("append: \(error)")
                }
            }
        }
    }
    var handles: [pthread_t] = []
    for index in 0..<threads {
        let worker = Unmanaged.passRetained(Worker(log: log, round: round, index: index))
        var thread = pthread_t()
        pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<Worker>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, worker.toOpaque())
        handles.append(thread)
    }
    for thread in handles { pthread_join(thread, nil) }
}

func check(directory: String, acks: String) {
    // Opening as the writer runs crash recovery (cuts a torn tail) exactly as a restarted server would.
    let log: EventLog
    do {
        log = try EventLog.openWriter(at: directory, environment: "sandbox", options: options)
    } catch {
        fail("reopen after crash: \(error)")
    }
    let recovered = log.recovery.map { " (\($0))" } ?? ""
    let head = log.head.seq
    var acknowledged = 0
    let text = (try? PosixFileSystem().readFile(acks)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    var lines = text.split(separator: "\n", omittingEmptySubsequences: true)
    if !text.hasSuffix("\n"), !lines.isEmpty { lines.removeLast() }  // a line cut by the kill
    for line in lines where line.hasPrefix("ack ") {
        let parts = line.split(separator: " ")
        guard parts.count == 3, let seq = UInt64(parts[1]) else { continue }
        acknowledged += 1
        guard seq <= head else { fail("acknowledged record \(seq) (\(parts[2])) is lost; head is \(head)") }
        do {
            let record = try log.record(seq: seq)
            guard record.idempotencyKey == parts[2] else {
                fail("record \(seq) is \(record.idempotencyKey), but \(parts[2]) was acknowledged as it")
            }
        } catch {
            fail("acknowledged record \(seq): \(error)")
        }
    }
    var expected: UInt64 = 1
    do {
        try log.forEach { record in
            guard record.seq == expected else { fail("seq gap: \(record.seq) after \(expected - 1)") }
            expected += 1
        }
    } catch {
        fail("scan: \(error)")
    }
    log.close()
    do {
        let report = try EventLog.verify(at: directory)
        guard report.ok else { fail("verify: \(report.problem!.message)") }
        emit("ok head=\(report.headSeq) acknowledged=\(acknowledged)\(recovered)")
    } catch {
        fail("verify: \(error)")
    }
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "write" where arguments.count == 5:
    write(directory: arguments[2], round: Int(arguments[3]) ?? 0, threads: Int(arguments[4]) ?? 4)
case "check" where arguments.count == 4:
    check(directory: arguments[2], acks: arguments[3])
default:
    emit("usage: LedgerLogTorture write DIR ROUND THREADS | check DIR ACKS")
    exit(64)
}
