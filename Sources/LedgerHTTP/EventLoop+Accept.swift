import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension EventLoop {
    /// Accepts the connections waiting on the listening socket (at most 64 per wake-up, so a flood of connections
    /// cannot keep the loop from the ones it has).
    func acceptAll() {
        guard listening, !core.isDraining else { return }
        for _ in 0..<64 {
            let accepted: (fd: Int32, peer: String)
            do {
                accepted = try Socket.accept(listener)
            } catch {
                if error.errno == EAGAIN || error.errno == EWOULDBLOCK { return }
                if error.errno == ECONNABORTED { continue }
                // EMFILE/ENFILE and friends: stop watching the listener briefly instead of spinning on it.
                try? epoll.remove(listener)
                acceptPausedUntil = SystemClock.monotonicMilliseconds() + 10
                return
            }
            _ = fcntl(accepted.fd, F_SETFL, fcntl(accepted.fd, F_GETFL) | O_NONBLOCK)
            admit(accepted.fd, peer: accepted.peer)
        }
    }

    /// Watches the listening socket again after a pause.
    func resumeAccepting() {
        acceptPausedUntil = nil
        guard listening else { return }
        try? epoll.add(listener, events: .readable, tag: 0)
    }

    /// Serves a new connection, making room at the cap by closing another (``evictable()``), or refuses it.
    ///
    /// A server may close an idle keep-alive connection at any time, and clients that hold connections open without
    /// using them must not keep others (Apple's deliveries among them) out. When every connection is in the middle
    /// of a request, the new one is answered 503 and closed.
    private func admit(_ fd: Int32, peer: String) {
        if core.openConnections >= core.configuration.maxConnections {
            guard let victim = evictable() else { return reject(fd, peer: peer) }
            close(victim)
            core.configuration.metrics?.connectionEvicted()
        }
        core.configuration.metrics?.connectionAccepted(true)
        core.countConnection(1)
        let connection = add(fd, peer: peer, counted: true)
        connection.becomeIdle()
    }

    /// Answers a connection over the cap with 503 and closes it, lingering briefly (at most 64 at once) so the
    /// client reads the answer instead of a reset.
    private func reject(_ fd: Int32, peer: String) {
        let configuration = core.configuration
        configuration.metrics?.connectionAccepted(false)
        let error = HTTPError(
            .serviceUnavailable, code: .unavailable,
            message: "the \(configuration.name.map { $0 + " " } ?? "")server is at its connection cap "
                + "(\(configuration.maxConnections)); retry shortly")
        var response = HTTPResponse.error(error)
        response.headers.set("Retry-After", "1")
        let length = response.serializedHead(keepAlive: false, date: HTTPDate.now()).count + response.body.count
        configuration.accessLog?.record(
            AccessLog.Entry(
                remote: peer, method: nil, path: nil, route: nil, status: 503, bytesIn: 0, bytesOut: length,
                milliseconds: 0))
        rejecting += 1
        let connection = add(fd, peer: peer, counted: false)
        connection.respond(
            response, keepAlive: false, includeBody: true, after: rejecting <= 64 ? .linger : .close, bytesIn: 0,
            recorded: false)
    }

    /// The connection to close at the cap: the one idle the longest when it has been idle for a second or more;
    /// else the one stalled the longest, for a second or more: receiving a request (a client that sends its head
    /// or its body a byte at a time, as slowloris does; counted from the request's first byte, since each byte is
    /// progress) or sending a response (a client that reads slowly or not at all). Neither
    /// may keep out a client that sends its request at once, nor cost a busy keep-alive client, idle between two
    /// requests, its connection. Else the one idle the longest, if for 20 ms or more; nil when all are busy.
    private func evictable() -> HTTPConnection? {
        let idle = oldestIdle()
        let now = SystemClock.monotonicMilliseconds()
        if let idle, now - idle.idleSince >= 1_000 { return idle }
        let write = core.configuration.timeouts.write.milliseconds
        func stalledSince(_ connection: HTTPConnection) -> Int? {
            guard connection.counted else { return nil }
            switch connection.stage {
            case .head, .body: return Int(connection.began / 1_000_000)
            case .writing: return connection.deadline - write
            default: return nil
            }
        }
        let stalled = connections.values.lazy.compactMap { connection in
            stalledSince(connection).map { (connection: connection, since: $0) }
        }.min { $0.since < $1.since }
        if let stalled, now - stalled.since >= 1_000 { return stalled.connection }
        // Idle for a moment only: between two requests of a busy client.
        guard let idle, now - idle.idleSince >= 20 else { return nil }
        return idle
    }

    /// The connection idle the longest whose next request has not arrived: one whose request waits unread in the
    /// kernel (the loop had not got to it) is not idle, and is read instead of closed.
    private func oldestIdle() -> HTTPConnection? {
        for _ in 0..<16 {
            guard
                let oldest = connections.values.lazy.filter({ $0.counted && $0.stage == .idle })
                    .min(by: { $0.idleSince < $1.idleSince })
            else { return nil }
            var byte: UInt8 = 0
            guard recv(oldest.fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0 else { return oldest }
            oldest.readable()
            if connections[oldest.id] === oldest && oldest.stage == .idle { return oldest }
        }
        return nil
    }

    private func add(_ fd: Int32, peer: String, counted: Bool) -> HTTPConnection {
        let connection = HTTPConnection(loop: self, id: nextID, fd: fd, peer: peer, counted: counted)
        nextID += 1
        connections[connection.id] = connection
        return connection
    }
}
