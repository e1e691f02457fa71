import LedgerSystem

extension IndexFiles {
    /// The seqs of the records filed under subject key hash `hash`, ascending, from the subject index file when
    /// it is intact and covers exactly the records `1...headSeq` (its seq and chain hash `headHash`), and that
    /// subject's postings name records in that range and link only back; nil otherwise. Reads the file's heads
    /// one by one: what a reader's first look-ups cost instead of loading its indexes.
    func subjectSeqs(hash: UInt64, headSeq: UInt64, headHash: [UInt8]) -> [UInt64]? {
        withSubjectFile(headSeq: headSeq, headHash: headHash) { content in
            guard let postings = SubjectPostings(content), let seqs = postings.seqs(of: hash, in: content),
                seqs.last.map({ $0 <= headSeq }) ?? true
            else { return nil }
            return seqs
        } ?? nil
    }

    /// Calls `body` with the content of the subject index file, mapped, when it is intact and covers exactly
    /// `1...headSeq`; nil otherwise.
    func withSubjectFile<Result>(
        headSeq: UInt64, headHash: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result? {
        guard headSeq > 0,
            let region = fileSystem.mapFile(path(Self.subjectsName), minimumSize: DerivedFile.headerSize)
        else { return nil }
        defer { fileSystem.unmap(region) }
        guard let content = DerivedFile.content(of: region, coveredSeq: headSeq, headHash: headHash) else {
            return nil
        }
        return try body(content)
    }
}
