import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// This process's memory, from /proc/self/status.
enum MemoryProbe {
    /// Resident memory (VmRSS), in KiB.
    static func residentKiB() -> Int { field("VmRSS:") }

    /// Peak resident memory (VmHWM) since start or the last ``resetPeak()``, in KiB.
    static func peakKiB() -> Int { field("VmHWM:") }

    /// Resident memory after giving freed heap pages back to the system (`malloc_trim`), in KiB: what live
    /// objects hold, without the allocator's free lists.
    static func trimmedResidentKiB() -> Int {
        if let trim = mallocTrim { _ = trim(0) }
        return residentKiB()
    }

    /// glibc's `malloc_trim`, which the Glibc module does not import.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    /// Resets VmHWM to the current VmRSS (`/proc/self/clear_refs`, Linux 4.0 and later); false when refused.
    static func resetPeak() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let five: [UInt8] = [0x35]
        return five.withUnsafeBytes { write(fd, $0.baseAddress, 1) } == 1
    }

    private static func field(_ name: String) -> Int {
        guard let bytes = try? PosixFileSystem().readStream("/proc/self/status") else { return 0 }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix(name) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return fields.count > 1 ? Int(fields[1]) ?? 0 : 0
        }
        return 0
    }
}
