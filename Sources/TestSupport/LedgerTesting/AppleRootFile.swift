import LedgerSystem

/// Apple Root CA - G3 where the workplace keeps it: `shared/trust/AppleRootCA-G3.cer` beside the repository. A
/// trust root is configuration, never part of the repository, so the tests that need the real one run only where
/// it was downloaded.
public enum AppleRootFile {
    /// The file's path, found from this source file's place in the repository.
    public static let path: String = {
        var parts = "\(#filePath)".split(separator: "/").map(String.init)
        parts.removeLast(3)  // Sources/LedgerTesting/AppleRootFile.swift
        parts.removeLast()  // the repository's own folder
        return "/" + (parts + ["shared", "trust", "AppleRootCA-G3.cer"]).joined(separator: "/")
    }()

    /// The certificate's bytes (DER), or nil when the file is not there.
    public static var bytes: [UInt8]? { (try? PosixFileSystem().readFile(path)) ?? nil }
}
