import LedgerStore
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension EvidenceStore {
    /// Checks the framing of every evidence pack — each entry's header checksum and body CRC-32C — without
    /// writing anything, and returns the first problem with its pack and offset: entries that cannot be read or
    /// fail a checksum before the end are damage; an incomplete or failed entry at the very end of the last pack
    /// is a torn tail (cut by the writer's next open, or `repair`) — unless `firstReference` finds a record that
    /// refers to evidence in it, which makes it damage (the writer syncs evidence before the records that refer to
    /// it). A tail still growing (a live writer) is looked at again.
    /// - Parameter firstReference: the first record (seq, and the digest) that refers to one of the given
    ///   digests; nil: references are not checked.
    static func verify(
        _ layout: DataDirectory, fileSystem: any FileSystem,
        firstReference: ((Set<EvidenceDigest>) throws(LogError) -> (seq: UInt64, digest: EvidenceDigest)?)? = nil
    ) throws(LogError) -> LogProblem? {
        var attempt = 0
        while true {
            let (problem, pack, size, tail) = try verifyOnce(
                layout, fileSystem: fileSystem, referencesChecked: firstReference != nil)
            guard let problem, problem.isTail, let pack else { return problem }
            let growing = { () -> Bool in
                guard attempt < 3, let now = try? fileSystem.stat(Path.join(layout.evidence, pack)), now.size != size
                else { return false }
                attempt += 1
                usleep(20_000)
                return true
            }
            if growing() { continue }
            guard let firstReference, let (seq, digest) = try firstReference(Set(tail.keys)) else { return problem }
            // The entry may have been completed since by a live writer, and the record written after it.
            if growing() { continue }
            let offset = tail[digest] ?? problem.offset ?? 0
            return LogProblem(
                kind: .damagedEvidence, segment: "evidence/\(pack)", offset: offset, seq: seq,
                message: EvidenceReferences.referencedTailMessage(
                    pack: Path.join(layout.evidence, pack), offset: offset, seq: seq, digest: digest,
                    nothingCut: false))
        }
    }

    /// One pass of ``verify(_:fileSystem:firstReference:)``: the problem, the pack it is in with the size it had,
    /// and for a torn tail the content addresses of the entries in it with their offsets.
    private static func verifyOnce(_ layout: DataDirectory, fileSystem: any FileSystem, referencesChecked: Bool)
        throws(LogError) -> (LogProblem?, String?, Int64, [EvidenceDigest: Int64])
    {
        let store = EvidenceStore(layout, fileSystem: fileSystem, writable: false, limit: EvidencePack.defaultLimit)
        defer { store.close() }
        // Entries whose body fails its CRC, by digest, in the order found: damage, unless an intact copy of the
        // same evidence follows (written again when Apple delivered the notification again; reads find that one).
        var broken: [EvidenceDigest: (name: String, offset: Int64, order: Int)] = [:]
        var order = 0
        func firstBroken() -> LogProblem? {
            broken.values.min { $0.order < $1.order }.map {
                damage(layout, $0.name, $0.offset, "its body fails its CRC-32C")
            }
        }
        do throws(SystemError) {
            let numbers = try store.lock.withLock { () throws(SystemError) in try store.listForVerify() }
            for (position, number) in numbers.enumerated() {
                let name = EvidencePack.name(number)
                let fd = try fileSystem.open(store.path(number), OpenOptions(access: .readOnly))
                defer { try? fileSystem.close(fd) }
                let size = try fileSystem.fstat(fd).size
                var offset: Int64 = 0
                // The bad bodies with no intact entry after them in this pack: the first's offset, their digests.
                var trailing: (offset: Int64, digests: [EvidenceDigest])?
                while offset < size {
                    guard let header = try store.header(fd, at: offset), offset + header.entrySize <= size else {
                        let rest = try fileSystem.read(fd, count: Int(size - offset), at: offset)
                        if EvidencePack.nextEntry(in: rest) != nil {
                            return (damage(layout, name, offset, "the entry there is unreadable"), name, size, [:])
                        }
                        break
                    }
                    let body = try fileSystem.read(
                        fd, count: header.length, at: offset + Int64(EvidencePack.headerSize))
                    if body.withUnsafeBytes({ EvidencePack.bodyHolds(header, $0) }) {
                        broken[header.digest] = nil
                        trailing = nil
                    } else {
                        if broken[header.digest] == nil {
                            broken[header.digest] = (name, offset, order)
                            order += 1
                        }
                        trailing = (trailing?.offset ?? offset, (trailing?.digests ?? []) + [header.digest])
                    }
                    offset += header.entrySize
                }
                let last = position == numbers.count - 1
                if offset < size && !last {
                    return (
                        damage(layout, name, trailing?.offset ?? offset, "the entry there is unreadable"), name, size,
                        [:]
                    )
                }
                // Bad bodies at the end of a sealed pack stay broken until a later copy turns up; at the end of the
                // last pack they, and any bytes after them, are a torn tail (damage before it is reported first).
                guard last, let tornAt = trailing?.offset ?? (offset < size ? offset : nil) else { continue }
                for digest in trailing?.digests ?? [] {
                    if let bad = broken[digest], bad.name == name, bad.offset >= tornAt { broken[digest] = nil }
                }
                if let problem = firstBroken() { return (problem, nil, size, [:]) }
                let bytes = try fileSystem.read(fd, count: Int(size - tornAt), at: tornAt)
                let tail = EvidencePack.digests(inTail: bytes).mapValues { tornAt + Int64($0) }
                let problem = LogProblem(
                    kind: .tornTail, segment: "evidence/\(name)", offset: tornAt, seq: nil,
                    message: "evidence pack \(Path.join(layout.evidence, name)) ends with \(size - tornAt) bytes of "
                        + "torn entry at byte \(tornAt) (a crash mid-write\(referencesChecked ? "; no record refers to it" : "")); "
                        + "opening the writer or `ledger repair` cuts it")
                return (problem, name, size, tail)
            }
        } catch {
            throw LogError.system(error, "reading the evidence packs in \(layout.evidence)")
        }
        if let problem = firstBroken() { return (problem, nil, 0, [:]) }
        return (nil, nil, 0, [:])
    }

    private static func damage(_ layout: DataDirectory, _ name: String, _ offset: Int64, _ what: String)
        -> LogProblem
    {
        LogProblem(
            kind: .damagedEvidence, segment: "evidence/\(name)", offset: offset, seq: nil,
            message: "evidence pack \(Path.join(layout.evidence, name)) is damaged at byte \(offset): \(what); "
                + "restore the pack from a backup (`ledger audit` names the records whose evidence is affected)")
    }

    /// The pack numbers, for `verify`.
    fileprivate func listForVerify() throws(SystemError) -> [UInt32] {
        guard let status = try fileSystem.stat(folder), status.isDirectory else { return [] }
        return try fileSystem.readDirectory(folder).compactMap { EvidencePack.number(name: $0) }.sorted()
    }
}
