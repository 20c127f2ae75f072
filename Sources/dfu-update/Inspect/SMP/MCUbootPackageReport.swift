import DFUSupport
import FirmwareUpdate
import MCUmgr

/// What `inspect` says about an MCUboot update (an nRF Connect SDK `dfu_application.zip` or one
/// image): the contract's JSON object, or a table for people.
struct MCUbootPackageReport {
    var package: MCUbootPackage
    /// The path as the user gave it.
    var file: String
    var key: MCUbootPublicKey?

    var json: JSONValue {
        .object([
            ("file", .string(file)),
            ("format", .string(DFUProtocol.smp.rawValue)),
            ("images", .array(package.images.map(imageJSON))),
        ])
    }

    private func imageJSON(_ entry: MCUbootPackage.Image) -> JSONValue {
        let image = entry.image
        return .object([
            ("image", .int(entry.imageIndex)),
            ("core", .string(entry.core.name)),
            ("slot", .optional(entry.slot)),
            ("file", .string(image.name)),
            ("size", .int(image.bytes.count)),
            ("version", .string(image.header.version.imageListDescription)),
            ("hash", .string(image.hash.hexString())),
            ("hash_algorithm", .string(image.hashAlgorithm.rawValue)),
            ("sha256", .string(image.fileSHA256.hexString())),
            ("signature", .optional(image.signature.map { "\($0.kind)" })),
            ("signature_valid", signatureValid(image)),
        ])
    }

    var table: String {
        let variants = package.images.contains { $0.slot != nil }
        var lines = [
            "\(file): MCUboot update (SMP), \(package.images.count) image(s), in upload order"
                + (variants
                    ? "; of the variants linked for one slot, the device takes the one for its other slot"
                    : "")
        ]
        let header = ["image", "core", "slot", "file", "size", "version", "hash", "signature"]
        let rows = package.images.map { entry in
            [
                "\(entry.imageIndex)", entry.core.name, entry.slot.map(String.init) ?? "any",
                entry.image.name, "\(entry.image.bytes.count)",
                entry.image.header.version.imageListDescription,
                "\(entry.image.hashAlgorithm.rawValue) " + String(entry.image.hash.hexString().prefix(16))
                    + "…",
                signatureText(entry.image),
            ]
        }
        lines += TextTable.lines(header: header, rows: rows)
        return lines.joined(separator: "\n")
    }

    private func signatureText(_ image: MCUbootImage) -> String {
        guard let signature = image.signature else { return "unsigned (hash only)" }
        let kind = image.isPureSignature ? "\(signature.kind) (pure)" : "\(signature.kind)"
        guard let key else { return "\(kind) (give --public-key to check)" }
        return switch image.verifySignature(with: key) {
        case .valid: "\(kind), valid"
        case .invalid: "\(kind), INVALID for this key"
        case .otherKey: "\(kind), made for another key"
        case .otherAlgorithm(let kind): "\(kind), another algorithm than the key's"
        case .unsigned: "unsigned (hash only)"
        }
    }

    /// `signature_valid`: null without a key or for an unsigned image (nothing to verify).
    private func signatureValid(_ image: MCUbootImage) -> JSONValue {
        guard let key, image.signature != nil else { return .null }
        return .bool(image.verifySignature(with: key) == .valid)
    }
}

extension DFUApplicationPackage.Core {
    /// `application`, `network` or `other`, as the JSON and the table print it.
    var name: String {
        switch self {
        case .application: "application"
        case .network: "network"
        case .other: "other"
        }
    }
}
