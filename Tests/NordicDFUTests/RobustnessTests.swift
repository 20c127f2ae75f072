import DFUSupport
import Foundation
import GATT
import TestSupport
import XCTest

@testable import NordicDFU

/// Random damage to real packages never crashes or hangs the reader: each mutant either reads or
/// is refused with a DFUPackageError.
final class RobustnessTests: XCTestCase {
    func testRandomMutationsOfFixtures() throws {
        let packages = try Fixtures.packages()
            .map { ($0.lastPathComponent, [UInt8](try Data(contentsOf: $0))) }
            .sorted { $0.1.count < $1.1.count }
        var generator = SplitMix64(seed: 0x5EED)
        let deadline = ContinuousClock.now + .seconds(60)
        var runs = 0
        var refused: [DFUPackageError.Kind: Int] = [:]
        for (name, original) in packages {
            // Small packages get more mutants: each costs about its size.
            let iterations = original.count < 32 * 1024 ? 400 : 60
            for _ in 0..<iterations where ContinuousClock.now < deadline {
                let mutant = mutate(original, using: &generator)
                do {
                    _ = try DFUPackage(zipData: Data(mutant), name: name)
                } catch {
                    refused[error.kind, default: 0] += 1
                }
                runs += 1
            }
        }
        XCTAssertGreaterThan(runs, 1000, "too few mutants ran before the time bound")
        XCTAssertGreaterThan(refused.values.reduce(0, +), 0)
    }

    private func mutate(_ bytes: [UInt8], using generator: inout SplitMix64) -> [UInt8] {
        var out = bytes
        switch generator.next() % 6 {
        case 0:  // flip a few bytes anywhere
            for _ in 0..<(1 + generator.next() % 4) {
                out[Int(generator.next() % UInt64(out.count))] ^= UInt8(1 + generator.next() % 255)
            }
        case 1:  // damage the central directory and end record, where the structure lives
            let tail = min(out.count, 512)
            for _ in 0..<(1 + generator.next() % 3) {
                out[out.count - 1 - Int(generator.next() % UInt64(tail))] = UInt8(
                    truncatingIfNeeded: generator.next())
            }
        case 2:  // truncate
            out.removeLast(Int(generator.next() % UInt64(out.count)))
        case 3:  // a 16- or 32-bit field in the tail set to an extreme
            let at = out.count - 4 - Int(generator.next() % UInt64(min(out.count - 4, 400)))
            let value: UInt8 = generator.next() % 2 == 0 ? 0xFF : 0x00
            for offset in 0..<(generator.next() % 2 == 0 ? 2 : 4) { out[at + offset] = value }
        case 4:  // insert junk
            let at = Int(generator.next() % UInt64(out.count))
            let length = Int(1 + generator.next() % 64)
            out.insert(contentsOf: generator.bytes(length), at: at)
        default:  // duplicate a slice
            let start = Int(generator.next() % UInt64(out.count))
            let length = Int(generator.next() % UInt64(min(256, out.count - start) + 1))
            out.insert(contentsOf: out[start..<start + length], at: Int(generator.next() % UInt64(out.count)))
        }
        return out
    }
}
