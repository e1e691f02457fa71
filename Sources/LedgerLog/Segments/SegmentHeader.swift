import LedgerCrypto
import LedgerStore

/// The 128-byte header at the start of every segment file.
///
/// It names the format version, the first record's seq, the chain hash before that record, and the environment,
/// so each segment can be checked on its own. Its last four bytes are a CRC-32C of the rest.
struct SegmentHeader: Equatable, Sendable {
    var version: UInt8
    var firstSeq: UInt64
    var previousHash: [UInt8]
    var environment: String

    /// The header's bytes.
    func encoded() -> [UInt8] {
        var bytes = LogFormat.segmentMagic
        bytes.append(version)
        bytes.append(0)  // flags
        bytes.appendLE(UInt16(LogFormat.segmentHeaderSize))
        bytes.appendLE(UInt32(0))  // reserved
        bytes.appendLE(firstSeq)
        bytes.append(contentsOf: previousHash)
        let name = Array(environment.utf8.prefix(LogFormat.maxEnvironmentLength))
        bytes.append(UInt8(name.count))
        bytes.append(contentsOf: name)
        bytes.append(contentsOf: repeatElement(0, count: LogFormat.segmentHeaderSize - 4 - bytes.count))
        let crc = bytes.withUnsafeBytes { CRC32C.checksum($0) }
        bytes.appendLE(crc)
        return bytes
    }

    /// Why a header could not be read.
    enum Problem: Equatable {
        /// Fewer than 128 bytes are there.
        case incomplete
        /// The magic or the checksum is wrong.
        case damaged(String)
        /// A newer format version.
        case newerVersion(UInt8)
    }

    /// Reads a header from the first 128 bytes of a segment.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<SegmentHeader, ProblemBox> {
        guard bytes.count >= LogFormat.segmentHeaderSize, let base = bytes.baseAddress else {
            return .failure(ProblemBox(.incomplete))
        }
        let size = LogFormat.segmentHeaderSize
        let stored = base.le32(size - 4)
        let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<(size - 4)]))
        guard Array(bytes[0..<8]) == LogFormat.segmentMagic else {
            return .failure(ProblemBox(.damaged("the segment magic is wrong")))
        }
        guard stored == computed else {
            return .failure(ProblemBox(.damaged("the segment header fails its checksum")))
        }
        let version = bytes[8]
        if version > LogFormat.version { return .failure(ProblemBox(.newerVersion(version))) }
        guard version >= 1, Int(base.le16(10)) == size else {
            return .failure(ProblemBox(.damaged("the segment header has an unknown layout")))
        }
        let nameLength = min(Int(bytes[56]), LogFormat.maxEnvironmentLength)
        let environment = String(decoding: bytes[57..<(57 + nameLength)], as: UTF8.self)
        return .success(
            SegmentHeader(
                version: version, firstSeq: base.le64(16), previousHash: Array(bytes[24..<56]),
                environment: environment))
    }

    /// A ``Problem`` that can travel in a `Result`.
    struct ProblemBox: Error, Equatable {
        var problem: Problem
        init(_ problem: Problem) { self.problem = problem }
    }
}
