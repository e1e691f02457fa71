import LedgerStore
import LedgerSystem

/// The cluster files of one log's `index/` directory (``SubjectCluster``; `Events/README.md`, "Cluster files"):
/// writing one from the log's records, merging two neighbours, mapping and checking one, and finding the chain
/// that holds the log from its first record on. Needs no lock: the records copied never change. When to write
/// and merge is the writer's policy (`EventLog+Clusters.swift`).
struct ClusterFiles {
    let fileSystem: any FileSystem
    /// The log's `index/` directory.
    let indexDirectory: String

    /// The most records one cluster file holds: a longer range gets several files (the build keeps a few words
    /// per record in memory).
    static let fileRecords: UInt64 = 4 << 20
    /// How many bytes of a file's data are assembled in memory at once; each such window costs a pass over the
    /// file's range of the log (a run longer than this gets a window of its own).
    static let windowBytes = 256 << 20

    // MARK: Building

    /// Writes the cluster file of records `from + 1 … through` of `segments`, whose chain hash at `through` is
    /// `hash`, into the index directory (atomically and durably); returns its path. Every frame's checksum is checked
    /// as it is copied.
    /// - Throws: ``LogError`` (damaged records, a write failure); nothing is left behind then.
    func write(_ segments: [Segment], from: UInt64, through: UInt64, hash: [UInt8]) throws(LogError) -> String {
        // Each record's home (the hash of its first subject key; records without one are not copied), by seq.
        struct Home {
            var hash: UInt64
            var index: UInt32
            var size: UInt32
        }
        let count = Int(through - from)
        var homes: [Home] = []
        homes.reserveCapacity(count)
        try SegmentReader.scan(fileSystem, segments, from: from + 1, through: through, checkCRC: true) { view, _, _ in
            var home: UInt64?
            view.forEachSubjectKey { key in
                if home == nil { home = StableHash.hash(key) }
            }
            if let home {
                homes.append(
                    Home(hash: home == 0 ? 1 : home, index: UInt32(view.seq - from - 1), size: UInt32(view.frameSize)))
            }
            return true
        }
        homes.sort { $0.hash != $1.hash ? $0.hash < $1.hash : $0.index < $1.index }

        // Where each record's frame goes in the data, run after run; windows cut between runs.
        var destination = [UInt64](repeating: .max, count: count)
        var runs: [(hash: UInt64, offset: UInt64)] = []
        var runLengths: [UInt64] = []
        var offset: UInt64 = 0
        var position = 0
        while position < homes.count {
            let hash = homes[position].hash
            runs.append((hash, offset))
            let framesStart = offset + UInt64(SubjectCluster.runHeaderSize)
            offset = framesStart
            while position < homes.count, homes[position].hash == hash {
                destination[Int(homes[position].index)] = offset
                offset += UInt64(homes[position].size)
                position += 1
            }
            runLengths.append(offset - framesStart)
        }
        homes = []
        let dataLength = offset
        var windows: [(start: UInt64, end: UInt64, runs: Range<Int>)] = []
        var first = 0
        while first < runs.count {
            var last = first + 1
            while last < runs.count,
                runs[last].offset + UInt64(SubjectCluster.runHeaderSize) + runLengths[last]
                    - runs[first].offset <= UInt64(Self.windowBytes)
            {
                last += 1
            }
            let end = last < runs.count ? runs[last].offset : dataLength
            windows.append((runs[first].offset, end, first..<last))
            first = last
        }

        let header = SubjectCluster.headerAndTable(
            from: from, through: through, hash: hash, runs: runs, dataLength: dataLength)
        return try ClusterFileWriter.write(
            fileSystem, indexDirectory: indexDirectory, from: from, through: through, header: header
        ) { (file) throws(LogError) in
            for window in windows {
                let buffer = UnsafeMutableRawBufferPointer.allocate(
                    byteCount: Int(window.end - window.start), alignment: 16)
                defer { buffer.deallocate() }
                for run in window.runs {
                    let at = Int(runs[run].offset - window.start)
                    buffer.storeBytes(of: runs[run].hash.littleEndian, toByteOffset: at, as: UInt64.self)
                    buffer.storeBytes(of: runLengths[run].littleEndian, toByteOffset: at + 8, as: UInt64.self)
                }
                var copied = 0
                try SegmentReader.scan(fileSystem, segments, from: from + 1, through: through, checkCRC: true) {
                    view, _, _ in
                    let target = destination[Int(view.seq - from - 1)]
                    if target >= window.start, target < window.end {
                        let at = Int(target - window.start)
                        UnsafeMutableRawBufferPointer(rebasing: buffer[at..<(at + view.frameSize)])
                            .copyMemory(from: UnsafeRawBufferPointer(start: view.base, count: view.frameSize))
                        copied += view.frameSize
                    }
                    return true
                }
                let runBytes = window.runs.reduce(0) { $0 + SubjectCluster.runHeaderSize + Int(runLengths[$1]) }
                guard copied + window.runs.count * SubjectCluster.runHeaderSize == runBytes else {
                    throw LogError(.damaged, "the log changed while its cluster file was written")
                }
                try file.append(UnsafeRawBufferPointer(buffer))
            }
        }
    }

    // MARK: Loading

    /// The cluster file at `path` for records `from + 1 … through`, mapped and checked against `hash` (the
    /// log's chain hash at `through`); nil when it cannot be read or does not match.
    func map(path: String, from: UInt64, through: UInt64, hash: [UInt8]) -> SubjectCluster? {
        // Page tables not filled: a query touches a few pages of a file, and a reader that asks one question
        // must not read gigabytes of copies first (the table's checksum reads the table alone).
        guard let region = fileSystem.mapFile(path, minimumSize: SubjectCluster.headerSize, populate: false) else {
            return nil
        }
        // Unmapped when the last copy of the cluster goes (a query may still hold one after a merge replaced it).
        let mapping = ClusterMapping(region: region, fileSystem: fileSystem)
        return hash.withUnsafeBytes { hash in
            SubjectCluster(mapping: mapping, from: from, through: through, hash: hash)
        }
    }

    /// The chain of cluster files in the index directory that hold this log from its first record on, each checked;
    /// and the names of the others (stale, damaged, or left out of the chain), which the writer deletes.
    func load(_ segments: [Segment], headSeq: UInt64) -> (chain: [SubjectCluster], unused: [String]) {
        let names = (try? fileSystem.readDirectory(indexDirectory)) ?? []
        var files: [(name: String, from: UInt64, through: UInt64)] = []
        var unused: [String] = []
        for name in names {
            if let (from, through) = SubjectCluster.range(ofFileName: name) {
                files.append((name, from, through))
            } else if name.hasPrefix("cluster-") {
                unused.append(name)  // a temporary file left by a build that did not finish
            }
        }
        // The longest file first where two start alike.
        files.sort { $0.from != $1.from ? $0.from < $1.from : $0.through > $1.through }
        var chain: [SubjectCluster] = []
        for file in files {
            let covered = chain.last?.through ?? 0
            guard file.from == covered, file.through <= headSeq,
                let record = try? SegmentReader.readRecord(fileSystem, segments, seq: file.through),
                let cluster = map(
                    path: Path.join(indexDirectory, file.name), from: file.from, through: file.through,
                    hash: record.hash)
            else {
                unused.append(file.name)
                continue
            }
            chain.append(cluster)
        }
        return (chain, unused)
    }

    /// Writes the cluster file of `older` and `newer` together (records `older.from + 1 … newer.through`; `newer`
    /// starts where `older` ends): their runs merged by hash in one streaming pass, each hash's frames from
    /// `older` then from `newer`, every frame's checksum and seq checked as it is copied. Returns its path.
    /// - Throws: ``LogError``: `damaged` when a file's data or a frame does not check (the caller then drops that
    ///   file, and the writer copies its records from the log again), or a write failure.
    func merge(_ older: SubjectCluster, _ newer: SubjectCluster) throws(LogError) -> String {
        precondition(older.through == newer.from, "only neighbouring cluster files merge")
        let damaged = LogError(
            .damaged, "a cluster file's data does not check; its records are copied from the log again")
        guard let olderRuns = older.runs(), let newerRuns = newer.runs() else { throw damaged }
        // The merged runs: indexes into each file's runs (-1: none), in ascending hash order.
        var merged: [(hash: UInt64, older: Int, newer: Int)] = []
        merged.reserveCapacity(max(olderRuns.count, newerRuns.count))
        var (o, n) = (0, 0)
        while o < olderRuns.count || n < newerRuns.count {
            let olderHash = o < olderRuns.count ? olderRuns[o].hash : .max
            let newerHash = n < newerRuns.count ? newerRuns[n].hash : .max
            if o < olderRuns.count && (n == newerRuns.count || olderHash < newerHash) {
                merged.append((olderHash, o, -1))
                o += 1
            } else if o == olderRuns.count || newerHash < olderHash {
                merged.append((newerHash, -1, n))
                n += 1
            } else {
                merged.append((olderHash, o, n))
                (o, n) = (o + 1, n + 1)
            }
        }
        var runs: [(hash: UInt64, offset: UInt64)] = []
        runs.reserveCapacity(merged.count)
        var offset: UInt64 = 0
        for run in merged {
            runs.append((run.hash, offset))
            offset += UInt64(SubjectCluster.runHeaderSize)
            if run.older >= 0 { offset += UInt64(olderRuns[run.older].frames.count) }
            if run.newer >= 0 { offset += UInt64(newerRuns[run.newer].frames.count) }
        }
        let header = SubjectCluster.headerAndTable(
            from: older.from, through: newer.through, hash: newer.throughHash, runs: runs, dataLength: offset)
        return try ClusterFileWriter.write(
            fileSystem, indexDirectory: indexDirectory, from: older.from, through: newer.through, header: header
        ) { (file) throws(LogError) in
            for run in merged {
                let olderFrames =
                    run.older >= 0 ? olderRuns[run.older].frames : UnsafeRawBufferPointer(start: nil, count: 0)
                let newerFrames =
                    run.newer >= 0 ? newerRuns[run.newer].frames : UnsafeRawBufferPointer(start: nil, count: 0)
                // Each frame is checked as it is copied: a failure leaves no file behind.
                guard Self.framesCheck(olderFrames, in: older), Self.framesCheck(newerFrames, in: newer) else {
                    throw damaged
                }
                try file.append(run.hash)
                try file.append(UInt64(olderFrames.count + newerFrames.count))
                try file.append(olderFrames)
                try file.append(newerFrames)
            }
        }
    }

    /// Whether a run's frames are whole and intact, each a record of the file's range, ascending.
    private static func framesCheck(_ frames: UnsafeRawBufferPointer, in cluster: SubjectCluster) -> Bool {
        guard var at = frames.baseAddress else { return true }
        let end = at + frames.count
        var previous = cluster.from
        while at < end {
            guard case .record(let view) = RecordCodec.parse(at, available: end - at), view.seq > previous,
                cluster.covers(view.seq)
            else { return false }
            previous = view.seq
            at += view.frameSize
        }
        return true
    }

    /// Where `cluster`'s file lives.
    func path(of cluster: SubjectCluster) -> String {
        Path.join(indexDirectory, SubjectCluster.fileName(from: cluster.from, through: cluster.through))
    }
}
