import LedgerCLI

#if canImport(Glibc)
    import Glibc
#endif

exit(LedgerMain.run(Array(CommandLine.arguments.dropFirst())))
