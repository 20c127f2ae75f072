import DFURollout

/// The devices one query selects: a filter form that works without JavaScript (GET), the page
/// of devices with each failure's error and advice, and links to the other pages.
enum DeviceTable {
    static func html(_ view: RolloutView) -> String {
        filterForm(view)
            + "<p id=\"matching\">\(view.matching) devices match; page \(view.query.page) of \(view.pages).</p>"
            + table(view) + pager(view)
    }

    static func filterForm(_ view: RolloutView) -> String {
        let states = DeviceStanding.allCases.map {
            option($0.rawValue, label: $0.label, selected: view.query.state == $0)
        }
        let gateways = view.gateways.map {
            option($0.gateway, label: $0.gateway, selected: view.query.gateway == $0.gateway)
        }
        let classes = view.errorClasses.map {
            option($0.errorClass, label: $0.errorClass, selected: view.query.errorClass == $0.errorClass)
        }
        return "<form method=\"get\" id=\"filter\">"
            + "<label>State <select name=\"state\"><option value=\"\">any</option>\(states.joined())</select></label> "
            + "<label>Gateway <select name=\"gateway\"><option value=\"\">any</option>\(gateways.joined())</select></label> "
            + "<label>Error <select name=\"error\"><option value=\"\">any</option>\(classes.joined())</select></label> "
            + "<button type=\"submit\">Show</button></form>"
    }

    static func table(_ view: RolloutView) -> String {
        let rows = view.rows.map { row in
            let device = row.status
            var error = ""
            if let failure = row.failure {
                error =
                    "<span class=\"failed\">\(HTMLText.escape(failure.errorClass))</span>: \(HTMLText.escape(failure.message))"
                if let advice = failure.advice {
                    error += "<br><span class=\"advice\">Try: \(HTMLText.escape(advice))</span>"
                }
            }
            return "<tr><td>\(HTMLText.escape(device.device))</td><td>\(row.standing.label)</td>"
                + "<td>\(HTMLText.escape(device.gateway ?? ""))</td><td>\(device.attempts)</td><td>\(error)</td></tr>"
        }
        return
            "<table id=\"devices\"><thead><tr><th>Device</th><th>State</th><th>Gateway</th><th>Attempts</th>"
            + "<th>Error and advice</th></tr></thead><tbody>\(rows.joined())</tbody></table>"
    }

    static func pager(_ view: RolloutView) -> String {
        var links: [String] = []
        if view.query.page > 1 {
            links.append(
                "<a rel=\"prev\" href=\"\(view.query.link(page: view.query.page - 1))\">previous</a>")
        }
        if view.query.page < view.pages {
            links.append("<a rel=\"next\" href=\"\(view.query.link(page: view.query.page + 1))\">next</a>")
        }
        return links.isEmpty ? "" : "<p>\(links.joined(separator: " · "))</p>"
    }

    private static func option(_ value: String, label: String, selected: Bool) -> String {
        "<option value=\"\(HTMLText.escape(value))\"\(selected ? " selected" : "")>\(HTMLText.escape(label))</option>"
    }
}
