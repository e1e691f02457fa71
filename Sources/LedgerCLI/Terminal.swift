import LedgerSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Standard output and error, written without buffering surprises.
public enum Terminal {
  /// Writes to standard output.
  public static func out(_ text: String) {
    write(1, text)
  }

  /// Writes a line to standard output.
  public static func line(_ text: String = "") {
    write(1, text + "\n")
  }

  /// Writes to standard error.
  public static func err(_ text: String) {
    write(2, text)
  }

  /// Whether standard error is a terminal (progress bars are drawn only then).
  public static var stderrIsTerminal: Bool { isatty(2) == 1 }

  private static func write(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let start = offset
      let written = try? Syscall.retrying("write") {
        bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + start, $0.count - start) }
      }
      guard let written, written > 0 else { return }  // a closed pipe: nothing more to say
      offset += written
    }
    bytes.removeAll()
  }
}
