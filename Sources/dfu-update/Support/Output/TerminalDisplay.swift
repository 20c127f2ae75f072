import DFUSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a person sees on a terminal: lines that scroll, and below them at most one live block (a
/// progress bar, a fleet's active devices) redrawn in place. Every line a command prints for a
/// person, log lines included, goes through here, so that none lands inside the block and no
/// redraw leaves part of an older one. Off a terminal there is no block: lines are written as
/// they come.
final class TerminalDisplay: Sendable {
    /// The display of this process's stderr.
    static let shared = TerminalDisplay()

    /// Whether stderr is a terminal (a live block is shown only there).
    let isTerminal: Bool
    /// The lines of the block on screen; the cursor stands at the end of the last one.
    private let block = Locked<[String]>([])

    private init() { isTerminal = isatty(STDERR_FILENO) == 1 }

    /// Prints `text` (a line or several, ended by `ending`) above the live block: to stderr, or
    /// to stdout.
    func print(_ text: String, toStandardOutput: Bool = false, ending: String = "\n") {
        block.withLock { block in
            let output = toStandardOutput ? FileHandle.standardOutput : FileHandle.standardError
            guard isTerminal, !block.isEmpty else { return Self.emit(text + ending, to: output) }
            write(erase(block))
            Self.emit(text + ending, to: output)
            write(draw(block))
        }
    }

    /// Shows `lines` as the live block, in place of the block shown before (on a terminal only).
    func show(_ lines: [String]) {
        guard isTerminal else { return }
        block.withLock { block in
            write(erase(block) + draw(lines))
            block = lines
        }
    }

    /// Removes the live block from the screen.
    func clearBlock() { show([]) }

    /// Back to the start of the block's first line, and the screen cleared from there.
    private func erase(_ lines: [String]) -> String {
        guard !lines.isEmpty else { return "" }
        return (lines.count > 1 ? "\u{1B}[\(lines.count - 1)A" : "") + "\r\u{1B}[J"
    }

    /// Each line cut to the terminal's width, so that none wraps and every redraw knows how many
    /// lines it covers.
    private func draw(_ lines: [String]) -> String {
        lines.map(fit).joined(separator: "\n")
    }

    /// The longest line that never wraps: the terminal's columns less three, so that the `^C`
    /// the terminal echoes after a live line stays on that line and is erased with it.
    var width: Int { max(20, columns - 3) }

    /// `line` cut to `width`, its end marked with `…`.
    func fit(_ line: String) -> String {
        let width = width
        return line.count > width ? String(line.prefix(width - 1)) + "…" : line
    }

    private var columns: Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    private func write(_ text: String) {
        guard !text.isEmpty else { return }
        Self.emit(text, to: FileHandle.standardError)
    }

    /// Writes `text`, or drops it when the reader is gone (`dfu-update … --json | head -1`).
    /// SIGPIPE ends the process there unless something ignores it, as NIO does once a command
    /// serves metrics or reaches PostgreSQL: then the write fails with EPIPE, which
    /// `FileHandle.write(_:)` turns into a crash, and the command goes on (its updates finish,
    /// its exit code tells how) without the output no one reads.
    private static func emit(_ text: String, to output: FileHandle) {
        try? output.write(contentsOf: Data(text.utf8))
    }
}
