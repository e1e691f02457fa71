// The entry of both fuzz targets: libFuzzer's, and the replayer of their findings.
//
// `Scripts/fuzz` compiles this file with one target's checks and `-D FUZZING` (and `-D FUZZ_HTTP` for the HTTP
// target), so libFuzzer calls `LLVMFuzzerTestOneInput` with each input. Built by SwiftPM as `LedgerFuzz`, it replays
// inputs through the same checks: `swift run LedgerFuzz http FILE...`, `swift run LedgerFuzz jws [--explain] FILE...`.

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        guard let data, size > 0 else { return 0 }
        let input = Array(UnsafeBufferPointer(start: data, count: size))
        #if FUZZ_HTTP
            checkHTTPInput(input)
        #else
            checkJWSInput(input)
        #endif
        return 0
    }
#else
    import LedgerTesting

    #if canImport(Glibc)
        import Glibc
    #endif

    @main
    struct ReplayFuzzInputs {
        static let usage =
            "LedgerFuzz http FILE... | LedgerFuzz jws [--explain] FILE...  (replays fuzzer inputs through the checks "
            + "of the HTTP parser and framer, or of the JSON/JWS boundary)"

        static func main() {
            var arguments = CommandLine.arguments.dropFirst()
            switch arguments.popFirst() {
            case "http":
                replayFuzzInputs(arguments, usage: usage, check: checkHTTPInput)
            case "jws":
                if arguments.first == "--explain" {
                    arguments.removeFirst()
                    reached = { print("  \($0)") }
                }
                replayFuzzInputs(arguments, usage: usage, check: checkJWSInput)
            default:
                print("usage: \(usage)")
                exit(64)
            }
        }
    }
#endif
