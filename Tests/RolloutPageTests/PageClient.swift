import Foundation
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Plain HTTP requests to the page, as a script (or another site's form) would send them:
/// no cookie jar and no redirects followed, so that each test sees exactly what it sends and gets.
final class PageClient: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    struct Answer {
        var status: Int
        var body: String
        var headers: [String: String]
    }

    private lazy var session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        return URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }()

    func get(_ url: String, cookie: String? = nil) async throws -> Answer {
        try await send(URLRequest(url: try XCTUnwrap(URL(string: url))), cookie: cookie)
    }

    /// A form's POST; `origin` as a browser would send it.
    func post(_ url: String, form: [String: String], cookie: String? = nil, origin: String? = nil)
        async throws -> Answer
    {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        if let origin { request.setValue(origin, forHTTPHeaderField: "Origin") }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        request.httpBody = Data(
            form.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(
                separator: "&"
            ).utf8)
        return try await send(request, cookie: cookie)
    }

    /// The first server-sent event's data of a stream (the server ends the stream after its
    /// lifetime, which a test makes short).
    func firstEvent(_ url: String) async throws -> String {
        let answer = try await get(url)
        XCTAssertEqual(answer.headers["content-type"], "text/event-stream")
        let line = answer.body.split(separator: "\n").first { $0.hasPrefix("data: ") }
        return String(try XCTUnwrap(line, answer.body).dropFirst(6))
    }

    private func send(_ request: URLRequest, cookie: String?) async throws -> Answer {
        var request = request
        if let cookie { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
        let (data, response) = try await session.data(for: request)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        let headers = http.allHeaderFields.reduce(into: [String: String]()) {
            $0["\($1.key)".lowercased()] = "\($1.value)"
        }
        return Answer(status: http.statusCode, body: String(decoding: data, as: UTF8.self), headers: headers)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
