import DBus
import Foundation
import TestSupport
import XCTest

/// Lets test handlers wait until the test releases them (instead of sleeping).
final class Gate: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// Suspends until ``open()``.
    func wait() async {
        for await _ in stream {}
    }

    func open() {
        continuation.finish()
    }
}

/// Records events from handlers so the test can await them in order.
final class Inbox<Element: Sendable>: Sendable {
    let stream: AsyncStream<Element>
    private let continuation: AsyncStream<Element>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Element.self)
    }

    /// Feeds every element of `sequence` into the inbox until cancelled.
    func pump(_ stream: AsyncStream<Element>) -> Task<Void, Never> {
        Task {
            for await element in stream { put(element) }
        }
    }

    func put(_ element: Element) {
        continuation.yield(element)
    }

    /// The next element, or nil when none comes within `seconds`. A timeout cancels the
    /// waiting iterator, which ends the stream: later elements are dropped.
    func next(within seconds: Double) async -> Element? {
        let stream = self.stream
        return try? await withTimeoutOrNil(seconds) {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        } ?? nil
    }
}

/// Runs `body` with a time limit; fails the test instead of hanging.
func withTimeout<T: Sendable>(
    _ seconds: Double, file: StaticString = #filePath, line: UInt = #line,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    guard let value = try await withTimeoutOrNil(seconds, body) else {
        XCTFail("timed out after \(seconds) s", file: file, line: line)
        throw CancellationError()
    }
    return value
}

/// Like ``withTimeout(_:file:line:_:)`` but returns nil instead of failing the test.
func withTimeoutOrNil<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T)
    async throws
    -> T?
{
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}

/// Asserts that `body` throws a `DBusError` and returns it.
func expectDBusError<T>(
    file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> T
) async -> DBusError? {
    do {
        _ = try await body()
        XCTFail("expected a DBusError, got a result", file: file, line: line)
    } catch let error as DBusError {
        return error
    } catch {
        XCTFail("expected a DBusError, got \(error)", file: file, line: line)
    }
    return nil
}

/// Seconds elapsed since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// An object with an `Echo` method (`v` → `v`) and a `EchoBytes` method (`ay` → `ay`).
let echoInterface = DBusInterface(
    "org.example.Echo",
    methods: [
        DBusMethod("Echo", in: "v", out: "v") { call in call.arguments },
        DBusMethod("EchoBytes", in: "ay", out: "ay") { call in call.arguments },
    ])

extension DBusConnection {
    /// Calls `org.example.Echo.<member>` at `/echo` on `server`.
    func echo(_ value: DBusValue, on server: String, member: String = "Echo") async throws -> DBusValue? {
        try await call(
            destination: server, path: "/echo", interface: "org.example.Echo", member: member,
            arguments: [value],
            timeout: .seconds(10)
        ).first
    }
}
