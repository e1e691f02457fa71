import LedgerStore
import LedgerSystem

/// The bytes after the last valid entry of the writer's last pack, found on open and not cut yet: the writer's
/// open cuts them only once it has made sure that no record refers to evidence in them.
struct EvidenceTail {
    /// The pack's number.
    var number: UInt32
    /// Where the bytes start (the byte after the last valid entry).
    var offset: Int64
    /// The bytes.
    var bytes: [UInt8]
    /// The content addresses of the entries in them, each with its entry's offset in the pack
    /// (``EvidencePack/digests(inTail:)``).
    var digests: [EvidenceDigest: Int64]
}

extension EvidenceStore {
    /// Finds the packs (and whether old per-file evidence exists) and indexes them, once. A writer checks every
    /// body of the last pack and notes the bytes after its last valid entry (``State/tail``), which
    /// ``finishRecoveryLocked()`` then cuts.
    func loadLocked() throws(SystemError) {
        guard !state.loaded else { return }
        let numbers = try listLocked()
        for (position, number) in numbers.enumerated() where state.packs[number] == nil {
            let last = position == numbers.count - 1
            let access: OpenOptions = OpenOptions(access: writable && last ? .readWrite : .readOnly)
            state.packs[number] = try fileSystem.open(path(number), access)
            state.scanned[number] = 0
        }
        for (position, number) in numbers.enumerated() {
            if writable && position == numbers.count - 1 {
                try recoverLastLocked(number)
            } else {
                try scanHeadersLocked(number, sealed: position < numbers.count - 1)
            }
        }
        state.loaded = true
    }

    /// Looks again for entries and packs a writer added since (a reader's miss). Only the pack that was the last
    /// one and any newer ones can have grown: the writer finishes its writes to a pack before it creates the next.
    func refreshLocked() throws(SystemError) {
        let last = state.packs.keys.max() ?? 0
        let numbers = try listLocked()
        for number in numbers where state.packs[number] == nil {
            state.packs[number] = try fileSystem.open(path(number), OpenOptions(access: .readOnly))
            state.scanned[number] = 0
        }
        for number in numbers where number >= last { try scanHeadersLocked(number, sealed: number != numbers.last) }
    }

    /// The pack numbers in the evidence folder, ascending; notes whether old per-file evidence exists.
    private func listLocked() throws(SystemError) -> [UInt32] {
        guard let status = try fileSystem.stat(folder), status.isDirectory else { return [] }
        var numbers: [UInt32] = []
        for name in try fileSystem.readDirectory(folder) {
            if let number = EvidencePack.number(name: name) {
                numbers.append(number)
            } else if name.utf8.count == 2 && name.utf8.allSatisfy({ Self.isHex($0) }) {
                state.hasLegacy = true
            }
        }
        return numbers.sorted()
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
    }

    /// Indexes a pack's entries from where it was scanned up to, reading headers only. In a `sealed` pack (one a
    /// newer pack follows: never written again) it steps over an unreadable entry that valid ones follow; otherwise
    /// it stops at the first entry that is not valid or not all there (a reader may race a writer).
    private func scanHeadersLocked(_ number: UInt32, sealed: Bool) throws(SystemError) {
        guard let fd = state.packs[number] else { return }
        let size = try fileSystem.fstat(fd).size
        var offset = state.scanned[number] ?? 0
        while offset + Int64(EvidencePack.headerSize) <= size {
            guard let decoded = try header(fd, at: offset), offset + decoded.entrySize <= size else {
                // In a sealed pack, damage that valid entries follow is skipped, as the writer's open skips it
                // (`verify` reports it), so that the entries after it, a copy written again among them, are found.
                // In the newest pack it may be an entry a live writer is still writing: looked at again on the
                // next miss.
                guard sealed else { break }
                let rest = try fileSystem.read(fd, count: Int(size - offset), at: offset)
                guard let next = EvidencePack.nextEntry(in: rest) else { break }
                noteSkippedLocked(number, at: offset, Array(rest[..<next]))
                offset += Int64(next)
                continue
            }
            state.index[decoded.digest] = EvidenceLocation(pack: number, offset: offset, length: decoded.length)
            offset += decoded.entrySize
        }
        state.scanned[number] = offset
    }

    /// Keeps an unreadable stretch of pack `number` at `offset` that a valid entry follows, with the addresses of
    /// the entries it may hold (``State/skipped``).
    private func noteSkippedLocked(_ number: UInt32, at offset: Int64, _ bytes: [UInt8]) {
        let digests = EvidencePack.digests(inTail: bytes).mapValues { offset + Int64($0) }
        state.skipped.append(EvidenceTail(number: number, offset: offset, bytes: bytes, digests: digests))
    }

    /// The valid entry header at `offset`, or nil.
    func header(_ fd: FileDescriptor, at offset: Int64) throws(SystemError) -> EvidencePack.Header? {
        let bytes = try fileSystem.read(fd, count: EvidencePack.headerSize, at: offset)
        guard bytes.count == EvidencePack.headerSize else { return nil }
        return bytes.withUnsafeBytes { EvidencePack.decodeHeader($0.baseAddress!) }
    }

    /// Checks every entry of the writer's last pack, header and body: indexes the valid ones (a bad body followed
    /// by valid entries as damaged) and notes the bytes after the last valid entry as ``State/tail``. The pack
    /// becomes the current one, ending there.
    private func recoverLastLocked(_ number: UInt32) throws(SystemError) {
        guard let fd = state.packs[number] else { return }
        let size = try fileSystem.fstat(fd).size
        var entries: [(digest: EvidenceDigest, location: EvidenceLocation)] = []
        var offset: Int64 = 0
        while offset < size {
            guard let header = try header(fd, at: offset), offset + header.entrySize <= size else {
                // Damage, when a valid entry follows (left in place for `verify` and `audit` to report, and
                // skipped); otherwise the tail.
                let rest = try fileSystem.read(fd, count: Int(size - offset), at: offset)
                guard let next = EvidencePack.nextEntry(in: rest) else { break }
                noteSkippedLocked(number, at: offset, Array(rest[..<next]))
                offset += Int64(next)
                continue
            }
            let body = try fileSystem.read(fd, count: header.length, at: offset + Int64(EvidencePack.headerSize))
            let holds = body.count == header.length && body.withUnsafeBytes { EvidencePack.bodyHolds(header, $0) }
            entries.append(
                (header.digest, EvidenceLocation(pack: number, offset: offset, length: header.length, damaged: !holds)))
            offset += header.entrySize
        }
        // Bad bodies at the very end belong to the tail: a torn write, unless a record refers to them.
        while let last = entries.last, last.location.damaged {
            offset = last.location.offset
            entries.removeLast()
        }
        // A later copy of the same evidence replaces an earlier one (a damaged entry written again), but a damaged
        // copy never hides an intact one.
        for item in entries where !(item.location.damaged && state.index[item.digest].map { !$0.damaged } ?? false) {
            state.index[item.digest] = item.location
        }
        if offset < size {
            let bytes = try fileSystem.read(fd, count: Int(size - offset), at: offset)
            let digests = EvidencePack.digests(inTail: bytes).mapValues { offset + Int64($0) }
            state.tail = EvidenceTail(number: number, offset: offset, bytes: bytes, digests: digests)
        }
        state.scanned[number] = offset
        state.current = (number, fd, offset)
        state.syncedEnd = offset
    }

    /// Ends the writer's recovery of the last pack: cuts the tail ``loadLocked()`` found (its bytes copied to
    /// `lost+found` and fsynced first, then the pack truncated and fsynced), or, without one, syncs the pack (a
    /// writer that exited cleanly may have left its last entries unsynced). Call it only once no record refers to
    /// evidence in the tail.
    func finishRecoveryLocked() throws(SystemError) {
        guard let tail = state.tail else {
            if let current = state.current { try fileSystem.fdatasync(current.fd) }
            return
        }
        guard let fd = state.packs[tail.number] else { return }
        let name = EvidencePack.name(tail.number)
        try fileSystem.createDirectories(lostAndFound)
        let saved = Path.join(lostAndFound, "\(name).\(tail.offset).\(SystemClock.wallMilliseconds()).tail")
        try fileSystem.writeFileDurably(saved, tail.bytes)
        try fileSystem.ftruncate(fd, size: tail.offset)
        try fileSystem.fsync(fd)
        state.tail = nil
        state.recovery = EvidenceRecovery(
            pack: name, offset: tail.offset, bytesCut: Int64(tail.bytes.count), savedAs: saved)
    }

    /// The pack to append to: cuts a failed write off first, and rolls to a new pack (the old one synced, the
    /// new one created durably) when there is none yet or the current one is full.
    func currentLocked() throws(SystemError) -> (number: UInt32, fd: FileDescriptor, end: Int64) {
        if let dirty = state.dirtyEnd, let current = state.current {
            try fileSystem.ftruncate(current.fd, size: dirty)
            state.dirtyEnd = nil
        }
        if let current = state.current, current.end < limit { return current }
        if let current = state.current, current.end > state.syncedEnd {
            do {
                try fileSystem.fdatasync(current.fd)
            } catch {
                failedSyncLocked()
                throw error
            }
        }
        let number = max(state.current?.number ?? 0, state.packs.keys.max() ?? 0) + 1
        let file = path(number)
        try fileSystem.createDirectories(folder)
        let fd = try fileSystem.open(file, OpenOptions(access: .readWrite, create: true, truncate: true))
        do {
            try fileSystem.fsync(fd)
            try fileSystem.fsyncDirectory(folder)
        } catch {
            try? fileSystem.close(fd)
            try? fileSystem.unlink(file)
            throw error
        }
        state.packs[number] = fd
        state.scanned[number] = 0
        state.current = (number, fd, 0)
        state.syncedEnd = 0
        state.unsynced.removeAll()
        return (number, fd, 0)
    }
}
