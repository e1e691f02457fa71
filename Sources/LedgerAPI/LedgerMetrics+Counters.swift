import LedgerHTTP

extension LedgerMetrics {
    /// A new counter in the server's registry, rendered on `/metrics` (for workers beside the server, such as
    /// `serve --consumption auto`). Ask once per name and labels, and keep it.
    public func counter(_ name: String, help: String, labels: MetricLabels = [:]) -> Counter {
        registry.counter(name, help: help, labels: labels)
    }

    /// A gauge in the server's registry whose value `value` gives each time `/metrics` is rendered.
    public func gauge(_ name: String, help: String, value: @escaping @Sendable () -> Double) {
        registry.gauge(name, help: help, value: value)
    }
}
