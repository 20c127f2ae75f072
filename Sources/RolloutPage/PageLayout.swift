/// The frame of every page: its head (no asset from elsewhere: the style is inline, the one
/// script is served by this server) and a heading that leads back to the list.
enum PageLayout {
    /// What the browser may load: only this server's script and the page's own style.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; "
        + "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// `refresh`: seconds after which a browser without JavaScript loads the page again.
    static func page(title: String, refresh: Int?, live: Bool, body: String) -> String {
        let noscript =
            refresh.map { "<noscript><meta http-equiv=\"refresh\" content=\"\($0)\"></noscript>" } ?? ""
        let script = live ? "<script src=\"/live.js\" defer></script>" : ""
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTMLText.escape(title))</title>\(noscript)\(script)
            <style>\(style)</style></head>
            <body><header><a href="/">Rollouts</a></header><main>
            \(body)
            </main></body></html>
            """
    }

    static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f8fa}
        header{background:#24292f;padding:8px 16px}header a{color:#fff;text-decoration:none;font-weight:600}
        main{padding:16px;max-width:1100px}section{background:#fff;border:1px solid #d0d7de;border-radius:6px;
        padding:12px 16px;margin:12px 0}h1{font-size:20px}h2{font-size:16px;margin:0 0 8px}
        table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eaeef2;
        vertical-align:top}.counts{display:flex;gap:16px;flex-wrap:wrap}.counts div{min-width:90px}
        .counts dd{font-size:20px;font-weight:600;margin:0}.counts dt{color:#57606a}
        .state{padding:2px 8px;border-radius:10px;background:#ddf4ff}.failed{color:#cf222e}
        form.inline{display:inline}progress{width:100%;height:14px}.advice{color:#57606a}
        """
}
