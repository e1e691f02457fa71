import LedgerSystem

/// A log's records grouped into **components**: two records that share a subject key are in one component, and so,
/// step by step, are the records they share keys with. A user's records and those of the subscriptions they name
/// (an orphan notification, a later re-signing) then lie in one component, which a projection rebuild folds on its
/// own. Found from the subject index's postings alone, no record read (`Events/README.md`, "Derived files").
///
/// Components are numbered in the order of their first records. Records without subject keys are in none.
public struct RecordComponents: Sendable, Equatable {
    /// Component `c`'s records, their seqs less one, ascending, are `members[starts[c]..<starts[c + 1]]`.
    public let starts: [Int]
    /// The records of every component, component after component (seqs less one).
    public let members: [UInt32]
    /// The seqs of the records in no component (without subject keys), ascending.
    public let unlisted: [UInt64]

    /// How many components there are.
    public var count: Int { starts.count - 1 }

    /// The components of records `1...records` from postings whose seqs lie in that range and whose links point
    /// back (``EventLog/links(in:headSeq:)`` checks a file's; the writer's own encoding has them so).
    ///
    /// The union is over the subjects, not the records: each posting's subject is the one its link names (a
    /// posting without a link starts a subject), each record takes the subject of its first posting, and a later
    /// posting of the record joins that subject to its own. A log has several times fewer subjects than records (a
    /// user and a subscription or two for some 18 records), so the union's memory stays in the cache while the
    /// postings are read in order.
    init(postings: SubjectPostings, records: Int) {
        let forest = NodeForest(capacity: postings.count)
        var firstSubject = [Int32](repeating: -1, count: records)
        var subjectOf = [Int32](repeating: 0, count: postings.count)
        firstSubject.withUnsafeMutableBufferPointer { firstSubject in
            subjectOf.withUnsafeMutableBufferPointer { subjectOf in
                for index in 0..<postings.count {
                    let link = postings.link(index)
                    let subject = link == 0 || link > index ? forest.add() : subjectOf[link &- 1]
                    subjectOf[index] = subject
                    let record = Int(truncatingIfNeeded: postings.seq(index) &- 1)
                    // Never so for checked postings; the buffers are not bounds-checked in release builds.
                    guard record >= 0, record < records else { continue }
                    let first = firstSubject[record]
                    if first < 0 {
                        firstSubject[record] = subject
                    } else if first != subject {
                        forest.union(first, subject)
                    }
                }
            }
        }
        // Each record's component, numbered as first met (a record's subject becomes its component in place).
        var number = [Int32](repeating: -1, count: forest.count)
        var sizes: [Int] = []
        firstSubject.withUnsafeMutableBufferPointer { componentOf in
            number.withUnsafeMutableBufferPointer { number in
                for record in 0..<records where componentOf[record] >= 0 {
                    let root = Int(forest.root(componentOf[record]))
                    if number[root] < 0 {
                        number[root] = Int32(truncatingIfNeeded: sizes.count)
                        sizes.append(0)
                    }
                    let component = Int(number[root])
                    componentOf[record] = Int32(truncatingIfNeeded: component)
                    sizes[component] &+= 1
                }
            }
        }
        self.init(componentOf: firstSubject, sizes: sizes)
    }

    /// The components of records `1...componentOf.count`: record `seq`'s is `componentOf[seq - 1]` (-1: none),
    /// numbered in the order of their first records, component `c` holding `sizes[c]` records (a record beyond
    /// them traps). Each component's records are placed side by side, in seq order.
    public init(componentOf: [Int32], sizes: [Int]) {
        var starts: [Int] = [0]
        starts.reserveCapacity(sizes.count + 1)
        for size in sizes { starts.append(starts[starts.count - 1] + size) }
        var next = starts
        var members = [UInt32](repeating: 0, count: starts[sizes.count])
        var unlisted: [UInt64] = []
        members.withUnsafeMutableBufferPointer { members in
            next.withUnsafeMutableBufferPointer { next in
                for (record, component) in componentOf.enumerated() {
                    guard component >= 0 else {
                        unlisted.append(UInt64(record + 1))
                        continue
                    }
                    let at = Int(component)
                    precondition(at < sizes.count && next[at] < starts[at + 1], "a record outside the sizes given")
                    members[next[at]] = UInt32(truncatingIfNeeded: record)
                    next[at] &+= 1
                }
            }
        }
        self.init(starts: starts, members: members, unlisted: unlisted)
    }

    private init(starts: [Int], members: [UInt32], unlisted: [UInt64]) {
        self.starts = starts
        self.members = members
        self.unlisted = unlisted
    }
}

extension EventLog {
    /// Calls `body` with the subject index file's links when the file is intact (its checksum holds), covers
    /// exactly the records `1...head` (the head's seq and chain hash), and every posting names a record in that
    /// range and links only back; nil otherwise (the caller then reads the records' subject keys). The file is
    /// mapped, not copied, while `body` runs.
    func withSubjectLinks<Result>(_ body: (SubjectLinks) throws -> Result) rethrows -> Result? {
        let (headSeq, headHash) = head
        return try indexFiles.withSubjectFile(headSeq: headSeq, headHash: headHash) { content in
            guard let links = SubjectLinks(content, headSeq: headSeq) else { return nil }
            return try body(links)
        } ?? nil
    }

    /// The components of every record up to the head (``RecordComponents``), when the subject index's file covers
    /// exactly the head (its seq and chain hash): found from its links (see ``withSubjectLinks(_:)``). Nil when it
    /// does not cover the head (records appended since, the file damaged or missing), or the log holds 2³² records
    /// or more; the caller then groups the records from their subject keys.
    public func recordComponents() -> (components: RecordComponents, coveredSeq: UInt64)? {
        let headSeq = head.seq
        guard headSeq > 0, headSeq < UInt64(UInt32.max) else { return nil }
        return withSubjectLinks { links in
            (RecordComponents(postings: links.postings, records: Int(headSeq)), headSeq)
        }
    }
}
