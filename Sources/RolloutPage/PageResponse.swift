import Foundation
import HTTPTypes
import Hummingbird

/// The page's responses, each with headers that keep a browser from loading anything from
/// elsewhere, sniffing types, framing the page or caching a rollout's state.
enum PageResponse {
    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: headers("text/html; charset=utf-8"),
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func script(_ text: String) -> Response {
        Response(
            status: .ok, headers: headers("text/javascript; charset=utf-8"),
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A page that says what went wrong and what to try, the message escaped.
    static func problem(_ status: HTTPResponse.Status, _ message: String) -> Response {
        html(
            PageLayout.page(
                title: "\(status.code) \(status.reasonPhrase)", refresh: nil, live: false,
                body:
                    "<h1>\(status.code) \(status.reasonPhrase)</h1><section><p id=\"problem\">\(HTMLText.escape(message))</p></section>"
            ),
            status: status)
    }

    /// After a form: back to `location` (303, so that a reload does not post again).
    static func seeOther(_ location: String, cookie: Cookie? = nil) -> Response {
        var response = Response(status: .seeOther, headers: headers("text/plain"))
        response.headers[.location] = location
        if let cookie { response.setCookie(cookie) }
        return response
    }

    static func headers(_ contentType: String) -> HTTPFields {
        [
            .contentType: contentType, .cacheControl: "no-store",
            .contentSecurityPolicy: PageLayout.contentSecurityPolicy,
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
        ]
    }
}
