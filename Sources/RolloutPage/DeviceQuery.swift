import DFURollout

/// Which devices of a rollout the page lists: filtered by state, gateway and error class, a page
/// at a time (`?state=failed&gateway=gw-1&error=…&page=2`).
struct DeviceQuery: Sendable, Equatable {
    static let pageSize = 100

    var state: DeviceStanding?
    var gateway: String?
    var errorClass: String?
    /// From 1.
    var page = 1

    init(state: DeviceStanding? = nil, gateway: String? = nil, errorClass: String? = nil, page: Int = 1) {
        self.state = state
        self.gateway = gateway
        self.errorClass = errorClass
        self.page = page
    }

    /// From a request's query; unknown or empty values mean no filter, a bad page the first.
    init(query: [String: String]) {
        state = query["state"].flatMap(DeviceStanding.init(rawValue:))
        gateway = query["gateway"].flatMap { $0.isEmpty ? nil : $0 }
        errorClass = query["error"].flatMap { $0.isEmpty ? nil : $0 }
        page = max(1, query["page"].flatMap { Int($0) } ?? 1)
    }

    /// The query string of `page` with these filters (escaped for an attribute).
    func link(page: Int) -> String {
        var parts: [String] = []
        if let state { parts.append("state=\(state.rawValue)") }
        if let gateway { parts.append("gateway=\(HTMLText.queryValue(gateway))") }
        if let errorClass { parts.append("error=\(HTMLText.queryValue(errorClass))") }
        parts.append("page=\(page)")
        return "?" + parts.joined(separator: "&amp;")
    }

    /// What the store is asked for.
    var listing: DeviceListingQuery {
        DeviceListingQuery(
            standing: state, gateway: gateway, errorClass: errorClass, offset: (page - 1) * Self.pageSize,
            limit: Self.pageSize)
    }
}
