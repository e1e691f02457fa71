import LedgerStore
import LedgerSystem

/// The cluster files (see ``SubjectCluster``): written by the writer, read by every reader of the log.
///
/// They cover the log from its first record in a chain of files, each the records after the previous file's:
/// `cluster-<from>-<through>` holds records `from + 1 … through`. The writer adds a file for the records no file
/// holds yet at a checkpoint, in the background and off the lock (the records it copies never change), once there
/// are enough of them (``clusterThresholdLocked``), and merges the last files while they are close in size
/// (`EventLog+ClusterMerge.swift`); at close it copies what is left once there are ``LogOptions/clusterMinimum``.
/// `rebuildIndexes` writes them all again.
extension EventLog {
    /// The most records one cluster file holds: a longer range gets several files (the build keeps a few words
    /// per record in memory).
    static let clusterFileRecords: UInt64 = 4 << 20
    /// How many bytes of a file's data are assembled in memory at once; each such window costs a pass over the
    /// file's range of the log (a run longer than this gets a window of its own).
    static let clusterWindowBytes = 256 << 20

    /// The seq through which cluster files hold the log (0: none). Holding the lock.
    var clusteredSeqLocked: UInt64 { state.clusters.last?.through ?? 0 }

    // MARK: Building

    /// Writes the cluster file of records `from + 1 … through` of `segments`, whose chain hash at `through` is
    /// `hash`, into `indexDirectory` (atomically and durably); returns its path. Every frame's checksum is checked
    /// as it is copied.
    /// - Throws: ``LogError`` (damaged records, a write failure); nothing is left behind then.
    static func writeCluster(
        _ fileSystem: any FileSystem, _ segments: [Segment], indexDirectory: String, from: UInt64, through: UInt64,
        hash: [UInt8]
    ) throws(LogError) -> String {
        // Each record's home (the hash of its first subject key; records without one are not copied), by seq.
        struct Home {
            var hash: UInt64
            var index: UInt32
            var size: UInt32
        }
        let count = Int(through - from)
        var homes: [Home] = []
        homes.reserveCapacity(count)
        try scan(fileSystem, segments, from: from + 1, through: through, checkCRC: true) { view, _, _ in
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
                    - runs[first].offset <= UInt64(clusterWindowBytes)
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
                try scan(fileSystem, segments, from: from + 1, through: through, checkCRC: true) { view, _, _ in
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
    static func mapCluster(
        _ fileSystem: any FileSystem, path: String, from: UInt64, through: UInt64, hash: [UInt8]
    ) -> SubjectCluster? {
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

    /// The chain of cluster files in `indexDirectory` that hold this log from its first record on, each checked;
    /// and the names of the others (stale, damaged, or left out of the chain), which the writer deletes.
    static func loadClusters(
        _ fileSystem: any FileSystem, _ segments: [Segment], indexDirectory: String, headSeq: UInt64
    ) -> (chain: [SubjectCluster], unused: [String]) {
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
                let record = try? readRecord(fileSystem, segments, seq: file.through),
                let cluster = mapCluster(
                    fileSystem, path: Path.join(indexDirectory, file.name), from: file.from, through: file.through,
                    hash: record.hash)
            else {
                unused.append(file.name)
                continue
            }
            chain.append(cluster)
        }
        return (chain, unused)
    }

    /// Loads the cluster files (the writer also deletes the unused ones). Holding the lock.
    func loadClustersLocked() {
        let (chain, unused) = Self.loadClusters(
            fileSystem, state.segments, indexDirectory: directory.index, headSeq: state.head.seq)
        state.clusters = chain
        if isWriter {
            for name in unused { try? fileSystem.unlink(Path.join(directory.index, name)) }
        }
    }

    // MARK: The writer's policy

    /// How many records must be in no cluster file before the background adds one: at least
    /// ``LogOptions/clusterMinimum``, and half as many as the files hold already (up to half a file's most), so
    /// that files grow with the log instead of cutting each subject's records into many small ones. Holding the
    /// lock.
    var clusterThresholdLocked: UInt64 {
        max(UInt64(options.clusterMinimum), min(clusteredSeqLocked, Self.clusterFileRecords) / 2)
    }

    /// Adds cluster files until fewer records than ``clusterThresholdLocked`` are in none (`finishing`, at close
    /// and for a rebuild: fewer than ``LogOptions/clusterMinimum``), merging the last two after each while they are
    /// close in size when `merging` (see ``mergeClusters()``), then clears `clusterBuilding` (which the caller
    /// set), ending the maintenance worker's turn. A failed build stops it and is returned (the next checkpoint
    /// tries again).
    @discardableResult
    func clusterRecords(finishing: Bool, merging: Bool = true) -> LogError? {
        var failure: LogError?
        while true {
            let job = lock.withLock { () -> (segments: [Segment], from: UInt64, through: UInt64, hash: [UInt8])? in
                let from = clusteredSeqLocked
                let threshold = finishing ? UInt64(options.clusterMinimum) : clusterThresholdLocked
                guard !state.closed, state.head.seq > from, state.head.seq - from >= threshold else { return nil }
                let through = min(state.head.seq, from + Self.clusterFileRecords)
                let hash =
                    through == state.head.seq
                    ? state.head.hash : (try? Self.readRecord(fileSystem, state.segments, seq: through))?.hash
                return hash.map { (state.segments, from, through, $0) }
            }
            guard let job else { break }
            do throws(LogError) {
                let path = try Self.writeCluster(
                    fileSystem, job.segments, indexDirectory: directory.index, from: job.from, through: job.through,
                    hash: job.hash)
                guard
                    let cluster = Self.mapCluster(
                        fileSystem, path: path, from: job.from, through: job.through, hash: job.hash)
                else {
                    // (A file system that does not map files: the copies would never be read.)
                    try? fileSystem.unlink(path)
                    throw LogError(.io, "the cluster file \(path) just written does not map and check")
                }
                lock.withLock { state.clusters.append(cluster) }
            } catch {
                failure = error
                break
            }
            if merging { mergeClusters() }
        }
        lock.withLock {
            state.maintaining = false
            lock.broadcast()
        }
        return failure
    }

    /// Deletes every cluster file (`ledger rebuild` then writes them again). Holding the lock, with no build
    /// running.
    func dropClustersLocked() {
        for cluster in state.clusters { try? fileSystem.unlink(clusterPath(cluster)) }
        state.clusters = []
    }
}
