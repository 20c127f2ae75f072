import Foundation
import TestSupport
import XCTest

/// `BackgroundProcess` talking with an interactive program, as the VM tests talk with
/// bluetoothctl: a prompt that ends without a newline is seen, and an answer typed to it arrives.
final class BackgroundProcessTests: XCTestCase {
    private let shell = URL(fileURLWithPath: "/bin/sh")

    func testAPromptWithoutANewlineIsSeenAndAnswered() async throws {
        let program = try BackgroundProcess(
            shell, ["-c", "printf 'Enter passkey: '; read answer; echo \"took $answer\" >&2"],
            takesInput: true, errorsInOutput: true)
        let prompt = try await program.text(["Enter passkey"], within: .seconds(30))
        XCTAssertEqual(prompt, "Enter passkey")
        XCTAssertTrue(program.lines.isEmpty, "the prompt ends no line")
        let mark = program.printedCount
        try program.send("123456\n")
        let answer = try await program.text(["took 123456"], within: .seconds(30), after: mark)
        XCTAssertEqual(answer, "took 123456", "standard error, in the output")
        let status = try await program.wait(within: .seconds(30))
        XCTAssertEqual(status, 0)
        let before = try await program.text(["Enter passkey"], within: .seconds(1), after: mark)
        XCTAssertNil(before, "only what came after the mark")
    }

    func testATextThatNeverComesEndsWithTheProgram() async throws {
        let program = try BackgroundProcess(shell, ["-c", "echo done"])
        let started = ContinuousClock.now
        let found = try await program.text(["never"], within: .seconds(60))
        XCTAssertNil(found)
        XCTAssertLessThan(
            ContinuousClock.now - started, .seconds(30), "it stopped looking when the program ended")
        try await program.wait(within: .seconds(30))
        XCTAssertThrowsError(try program.send("late\n"), "a program started without input takes none")
    }
}
