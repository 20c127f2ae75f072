/// `/`: every rollout of the store, oldest first, with its state and how far it got.
enum RolloutListPage {
    struct Row: Sendable {
        var rollout: String
        var state: String
        var total: Int
        var done: Int
    }

    static func html(_ rows: [Row], store: String) -> String {
        let body = rows.map { row in
            let name = HTMLText.escape(row.rollout)
            return "<tr><td><a href=\"/rollouts/\(HTMLText.queryValue(row.rollout))\">\(name)</a></td>"
                + "<td><span class=\"state\">\(row.state)</span></td><td>\(row.done) of \(row.total)</td></tr>"
        }
        let table =
            rows.isEmpty
            ? "<p>The store has no rollout yet: <code>dfu-update rollout create</code> makes one.</p>"
            : "<table><thead><tr><th>Rollout</th><th>State</th><th>Devices with a result</th></tr></thead>"
                + "<tbody>\(body.joined())</tbody></table>"
        return PageLayout.page(
            title: "Rollouts", refresh: 30, live: false,
            body: "<h1>Rollouts</h1><p>Store: \(HTMLText.escape(store))</p><section>\(table)</section>")
    }
}
