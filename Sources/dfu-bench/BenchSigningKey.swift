import Crypto
import Foundation

/// A P-256 key made for one benchmark run, its public half in a PEM file for dfu-sim's
/// `--sim-public-key` until `remove`.
struct BenchSigningKey {
    let key = P256.Signing.PrivateKey()
    let publicKeyFile: URL

    /// Writes the public key to a temporary file named after `benchmark` and this process.
    init(benchmark: String) throws {
        publicKeyFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-bench-\(benchmark)-\(getpid()).pem")
        try key.publicKey.pemRepresentation.write(to: publicKeyFile, atomically: true, encoding: .utf8)
    }

    func remove() { try? FileManager.default.removeItem(at: publicKeyFile) }
}
