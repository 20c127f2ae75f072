import ArgumentParser
import DFUSupport
import Foundation
import GATT
import NordicDFU

/// `dfu-bench package PKG`: reading and checking a package in-process, what `inspect` does before
/// it prints: open, inflate, decode every init packet, check it against its image (CRC-16, CRC-32,
/// SHA-256) and, with `--public-key`, verify the signatures.
struct PackageBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "package", abstract: "Time to read and check one package, in-process.")

    @Argument(help: "The package (.zip, or a bare .bin/.hex).")
    var package: String

    @Option(name: .customLong("public-key"), help: "Also verify signatures with this key.")
    var publicKey: String?

    @Option(help: "Reads; the median and the best count.")
    var reads = 50

    func run() async throws {
        let url = URL(fileURLWithPath: package)
        let key = try publicKey.map { try DFUPublicKey(contentsOf: URL(fileURLWithPath: $0)) }
        var seconds: [Double] = []
        var images = 0
        for _ in 0..<reads {
            let start = ContinuousClock.now
            let read = try DFUPackage(contentsOf: url)
            if let key { _ = read.verifySignatures(with: key) }
            let elapsed = ContinuousClock.now - start
            images = read.images.count
            seconds.append(elapsed.seconds)
        }
        seconds.sort()
        let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        print(
            #"{"benchmark":"package_read","file_bytes":\#(bytes),"images":\#(images),"reads":\#(reads),"#
                + #""median_ms":\#(figure(seconds[seconds.count / 2] * 1000)),"best_ms":\#(figure(seconds[0] * 1000))}"#
        )
    }
}
