// The crash test's two halves (see Scripts/crash-test).
//
//   LedgerLogTorture write DIR ROUND THREADS   appends forever from THREADS threads, printing "ack SEQ KEY" on
//                                              stdout after each append returns (i.e. once it is durable);
//                                              thread 0's every fourth append is a batch of several megabytes
//   LedgerLogTorture check DIR ACKS [--tear]   opens DIR as a reader (its head must be the one the writer's
//                                              recovery keeps), then as the writer (recovering from the crash),
//                                              then checks that every acknowledged record is there, verify passes
//                                              and the seqs are gap-free. --tear first simulates power loss: the bytes
//                                              after the last acknowledged record are cut at a random point,
//                                              sometimes followed by zeros
import LedgerLog
import LedgerStore
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

/// Small segments so that crashes also land while a segment is being rolled; cluster files from 2,000 records on,
/// so that they also land while one is being copied or merged in the background.
let options = LogOptions(segmentSize: 256 * 1024, checkpointInterval: 5_000, clusterMinimum: 2_000)

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
            var calls = 0
            while true {
                calls += 1
                // Thread 0's every fourth call is a batch of several megabytes, which the log seals and writes
                // on a helper thread while it fills the frames: kills land inside those too.
                let batch =
                    index == 0 && calls % 4 == 0
                    ? Int.random(in: 5_000...9_000, using: &random) : Int.random(in: 1...20, using: &random)
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
        let worker = Worker(log: log, round: round, index: index)
        handles.append(try! startThread(detached: false) { worker.run() })
    }
    for thread in handles { joinThread(thread) }
}

/// Simulates power loss after a kill: whatever was not acknowledged may be lost or left as garbage. Cuts the last
/// segment at a random point after the last acknowledged record, sometimes adding zeros (as ext4 can leave).
func tear(directory: String, lastAcknowledged: UInt64) -> String {
    let fs = PosixFileSystem()
    guard let reader = try? EventLog.openReader(at: directory) else { return "" }
    defer { reader.close() }
    var keepUntil: (segment: String, end: Int64)?
    if lastAcknowledged > 0 {
        try? reader.forEachView(from: lastAcknowledged) { view, segment, offset in
            if keepUntil == nil { keepUntil = (segment, offset + Int64(view.frameSize)) }
        }
    }
    let names = ((try? fs.readDirectory(directory + "/log")) ?? []).filter { $0.hasSuffix(".seg") }.sorted()
    guard let last = names.last, let fd = try? fs.open(directory + "/log/" + last, .readWrite) else { return "" }
    defer { try? fs.close(fd) }
    guard let size = try? fs.fstat(fd).size else { return "" }
    let floor = keepUntil?.segment == last ? keepUntil!.end : 128
    guard size > floor, Bool.random() else { return "" }
    let cut = Int64.random(in: floor...size)
    try? fs.ftruncate(fd, size: cut)
    var note = " torn at \(last):\(cut) of \(size)"
    if Int.random(in: 0..<3) == 0 {
        let zeros = [UInt8](repeating: 0, count: Int.random(in: 1...4096))
        try? fs.writeAll(fd, zeros, at: cut)
        note += " +\(zeros.count) zero bytes"
    }
    try? fs.fsync(fd)
    return note
}

/// Bytes as lowercase hex ("-" for none), for failure messages.
func hex(_ bytes: [UInt8]) -> String {
    guard !bytes.isEmpty else { return "-" }
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
}

func check(directory: String, acks: String, tearing: Bool) {
    let text = (try? PosixFileSystem().readFile(acks)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    var lines = text.split(separator: "\n", omittingEmptySubsequences: true)
    if !text.hasSuffix("\n"), !lines.isEmpty { lines.removeLast() }  // a line cut by the kill
    let lastAcknowledged =
        lines.compactMap { line -> UInt64? in
            let parts = line.split(separator: " ")
            return parts.count == 3 && parts[0] == "ack" ? UInt64(parts[1]) : nil
        }.max() ?? 0
    let torn = tearing ? tear(directory: directory, lastAcknowledged: lastAcknowledged) : ""
    // A reader before recovery (it takes the records of the last checkpoint from `index/positions.idx` and walks
    // the rest, stopping at the torn bytes) must see the head the writer's recovery keeps.
    let readerHead: (seq: UInt64, hash: [UInt8])
    do {
        let reader = try EventLog.openReader(at: directory)
        readerHead = reader.head
        reader.close()
    } catch {
        fail("a reader after the crash: \(error)")
    }
    // Opening as the writer runs crash recovery (cuts a torn tail) exactly as a restarted server would.
    let log: EventLog
    do {
        log = try EventLog.openWriter(at: directory, environment: "sandbox", options: options)
    } catch {
        fail("reopen after crash: \(error)")
    }
    // Killed before its first record was durable, a directory may not be bound to an environment yet: a reader
    // then has no genesis hash to report (empty), while the writer, told the environment, has one.
    let unbound = readerHead.seq == 0 && readerHead.hash.isEmpty
    guard log.head.seq == readerHead.seq, unbound || log.head.hash == readerHead.hash else {
        fail(
            "a reader saw head \(readerHead.seq) (hash \(hex(readerHead.hash))) before recovery, the writer keeps "
                + "\(log.head.seq) (hash \(hex(log.head.hash)))")
    }
    let recovered = log.recovery.map { " (\($0))" } ?? ""
    let head = log.head.seq
    var acknowledged = 0
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
    // The writer's open deleted whatever a killed cluster build left (a temporary file, a file the chain does not
    // use); the subjects read through the cluster files what they read record by record.
    // (This process's own writer may be copying records already: its temporary file is not a leftover.)
    let leftovers = ((try? PosixFileSystem().readDirectory(directory + "/index")) ?? []).filter {
        $0.hasPrefix("cluster-") && $0.contains(".tmp") && !$0.contains(".tmp-\(getpid())-")
    }
    guard leftovers.isEmpty else { fail("a killed cluster build left \(leftovers)") }
    for key in ["user:0", "user:42", "user:96", "thread:0", "thread:3"] {
        do {
            var seen: [UInt64] = []
            try log.forEachRecord(forSubjectKey: key) { seen.append($0.seq) }
            let expected = try log.records(forSubjectKey: key).map(\.seq)
            guard seen == expected else {
                fail("\(key): \(seen.count) records through the clusters, \(expected.count) one by one")
            }
        } catch {
            fail("reading \(key): \(error)")
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
        emit("ok head=\(report.headSeq) acknowledged=\(acknowledged)\(torn)\(recovered)")
    } catch {
        fail("verify: \(error)")
    }
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "write" where arguments.count == 5:
    write(directory: arguments[2], round: Int(arguments[3]) ?? 0, threads: Int(arguments[4]) ?? 4)
case "check" where arguments.count == 4 || arguments.count == 5:
    check(directory: arguments[2], acks: arguments[3], tearing: arguments.count == 5 && arguments[4] == "--tear")
default:
    emit("usage: LedgerLogTorture write DIR ROUND THREADS | check DIR ACKS [--tear]")
    exit(64)
}
