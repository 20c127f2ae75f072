import DFUSupport
import Foundation

/// Where a device's 6-digit passkey comes from, read each time a pairing asks for it. Never the
/// command line: a file only its owner may read, an environment variable, or a program run on
/// demand (as `SSH_ASKPASS` is) that prints it. Describing a source never shows the passkey.
public enum PasskeySource: Sendable, Equatable, CustomStringConvertible {
    /// A file whose first line is the passkey; refused when its group or others may read it.
    case file(String)
    /// The environment variable of this name.
    case environment(String)
    /// A program run with the device's address as its one argument; its standard output is the
    /// passkey.
    case command(String)

    public var description: String {
        switch self {
        case .file(let path): "the passkey file \(path)"
        case .environment(let name): "the environment variable \(name)"
        case .command(let program): "the passkey command \(program)"
        }
    }

    /// How long a passkey command may run.
    static let commandTimeout = Duration.seconds(30)

    /// The passkey for `device` (an address). Throws `PasskeySourceError`, whose message names
    /// the source and never the passkey.
    public func passkey(
        for device: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> UInt32 {
        let text: String
        switch self {
        case .file(let path):
            do {
                if let exposure = try SecretFile.exposure(of: path) { throw PasskeySourceError(exposure) }
                text = try String(contentsOfFile: path, encoding: .utf8)
            } catch let error as PasskeySourceError {
                throw error
            } catch {
                throw PasskeySourceError("cannot read \(self): \(error.localizedDescription)")
            }
        case .environment(let name):
            guard let value = environment[name] else { throw PasskeySourceError("\(self) is not set") }
            text = value
        case .command(let program):
            text = try await Self.run(program, device: device)
        }
        return try parse(text)
    }

    /// The passkey in `text`'s first line: 1 to 6 decimal digits (a number from 0 to 999999).
    func parse(_ text: String) throws -> UInt32 {
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        let digits = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...6).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let passkey = UInt32(digits)
        else {
            throw PasskeySourceError("\(self) does not hold a passkey: expected 6 digits (000000 to 999999)")
        }
        return passkey
    }

    private static func run(_ program: String, device: String) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = [device]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        let source = PasskeySource.command(program)
        do {
            try process.run()
        } catch {
            throw PasskeySourceError("cannot run \(source): \(error.localizedDescription)")
        }
        let bytes = try await withRealTimeout(
            commandTimeout,
            orThrow: {
                process.terminate()
                return PasskeySourceError(
                    "\(source) did not finish within \(commandTimeout.secondsForPeople)")
            },
            {
                // read off the cooperative pool: the program may take its time
                await withCheckedContinuation { done in
                    DispatchQueue.global().async {
                        done.resume(returning: output.fileHandleForReading.readDataToEndOfFile())
                    }
                }
            })
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw PasskeySourceError("\(source) failed (exit status \(process.terminationStatus))")
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Why a passkey could not be had: names the source, never a passkey.
public struct PasskeySourceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
