import DFURollout

/// `/rollouts/NAME`: one rollout's progress by state and by gateway, throughput, failures by
/// error class and its devices. The counts and the plot carry ids that `/live.js` updates from
/// the server-sent events; without JavaScript the page reloads itself.
enum RolloutDetailPage {
    static let refreshSeconds = 10

    static func html(_ view: RolloutView, plot: String, controls: String) -> String {
        let name = HTMLText.escape(view.rollout)
        let body = """
            <h1 id="rollout" data-rollout="\(name)" data-events="/rollouts/\(HTMLText.queryValue(view.rollout))/events">\
            Rollout \(name) <span class="state" id="state">\(view.state.rawValue)</span></h1>
            <section><h2>Progress</h2>
            <p><span id="done">\(view.done)</span> of <span id="total">\(view.total)</span> devices have their result.</p>
            <progress id="progress" max="\(max(view.total, 1))" value="\(view.done)"></progress>
            <dl class="counts">\(counts(view))</dl>\(controls)</section>
            <section><h2>Throughput (devices per minute)</h2><div id="plot">\(plot)</div></section>
            <section id="gateways"><h2>Gateways</h2>\(gateways(view))</section>
            <section id="failures"><h2>Failures</h2>\(failures(view))</section>
            <section id="device-list"><h2>Devices</h2>\(DeviceTable.html(view))</section>
            """
        return PageLayout.page(
            title: "Rollout \(view.rollout)", refresh: refreshSeconds, live: true, body: body)
    }

    static func counts(_ view: RolloutView) -> String {
        DeviceStanding.allCases.map { state in
            "<div><dt>\(state.label)</dt><dd data-count=\"\(state.rawValue)\">\(view.counts[state, default: 0])</dd></div>"
        }.joined()
    }

    static func gateways(_ view: RolloutView) -> String {
        guard !view.gateways.isEmpty else { return "<p>No gateway has claimed a device yet.</p>" }
        let head = DeviceStanding.allCases.map { "<th>\($0.label)</th>" }.joined()
        let rows = view.gateways.map { row in
            let link = "?gateway=\(HTMLText.queryValue(row.gateway))"
            let cells = DeviceStanding.allCases.map { "<td>\(row.counts[$0, default: 0])</td>" }.joined()
            return "<tr><td><a href=\"\(link)\">\(HTMLText.escape(row.gateway))</a></td>\(cells)</tr>"
        }
        return "<table><thead><tr><th>Gateway</th>\(head)</tr></thead><tbody>\(rows.joined())</tbody></table>"
    }

    static func failures(_ view: RolloutView) -> String {
        guard !view.errorClasses.isEmpty else { return "<p>No device has failed.</p>" }
        let rows = view.errorClasses.map { entry in
            let link = "?error=\(HTMLText.queryValue(entry.errorClass))"
            return "<li><a href=\"\(link)\">\(HTMLText.escape(entry.errorClass))</a>: \(entry.count)</li>"
        }
        return "<ul id=\"error-classes\">\(rows.joined())</ul>"
    }
}
