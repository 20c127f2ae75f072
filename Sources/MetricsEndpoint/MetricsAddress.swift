/// Where `--metrics` serves: a host (an IPv4 or IPv6 address, or a name) and a port, as
/// `127.0.0.1:9464` or `[::1]:9464`.
public struct MetricsAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `HOST:PORT`; the port is 0…65535 (0: any free port). Returns nil for anything else.
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(where: \.isWhitespace) else { return nil }
        self.init(host: host, port: port)
    }

    /// Whether only this machine can connect: the series tell which devices a site has and
    /// how its updates go, so serving them further is a choice to make knowingly.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
