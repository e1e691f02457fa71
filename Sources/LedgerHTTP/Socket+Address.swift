import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension Socket {
    /// A resolved socket address.
    struct Address {
        var storage: sockaddr_storage
        var length: socklen_t
        var family: Int32

        /// Calls `body` with the address as a `sockaddr` pointer and its length.
        func withPointer<R>(
            _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> R
        ) throws(SystemError) -> R {
            var copy = storage
            return try withUnsafePointer(to: &copy) { pointer throws(SystemError) in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemError) in
                    try body(address, length)
                }
            }
        }
    }

    /// Resolves `host` (an IPv4 or IPv6 literal, or a name such as `localhost`) to its first TCP address.
    static func resolve(host: String, port: UInt16, passive: Bool) throws(SystemError) -> Address {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            throw SystemError(
                .notFound, call: "getaddrinfo",
                message: "cannot resolve host \(host): \(reason); use an IP address such as 127.0.0.1")
        }
        defer { freeaddrinfo(list) }
        var storage = sockaddr_storage()
        let length = first.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(length)))
        }
        return Address(storage: storage, length: length, family: first.pointee.ai_family)
    }

    /// `host:port` (IPv6 as `[host]:port`) for a peer address.
    static func describe(_ storage: inout sockaddr_storage, length: socklen_t) -> String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let status = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                getnameinfo(
                    address, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                    NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard status == 0 else { return "unknown" }
        let hostText = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let serviceText = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return storage.ss_family == sa_family_t(AF_INET6)
            ? "[\(hostText)]:\(serviceText)" : "\(hostText):\(serviceText)"
    }
}
