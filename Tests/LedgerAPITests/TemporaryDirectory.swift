#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp for one test, removed when the test ends.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/ledger-service-test-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed")
        path = String(cString: template)
    }

    deinit {
        _ = system("rm -rf '\(path)'")
    }
}
