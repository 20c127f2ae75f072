import NordicDFU

@testable import DFUSimulator

/// What a simulated device may hold after an update of a package was tried: per image type,
/// the SHA-256 of what the package would install there.
struct ImageInventory {
    let expected: [InstalledImageType: String]

    init(_ package: DFUPackage) {
        var expected: [InstalledImageType: String] = [:]
        for image in package.images {
            let bytes = image.firmware[...]
            switch image.kind {
            case .application: expected[.application] = Self.hash(bytes)
            case .softdevice: expected[.softdevice] = Self.hash(bytes)
            case .bootloader: expected[.bootloader] = Self.hash(bytes)
            case .softdeviceBootloader:
                let split = bytes.startIndex + Int(image.sdSize ?? 0)
                expected[.softdevice] = Self.hash(bytes[..<split])
                expected[.bootloader] = Self.hash(bytes[split...])
            }
        }
        self.expected = expected
    }

    private static func hash(_ bytes: ArraySlice<UInt8>) -> String {
        InstalledImage(bytes: bytes, version: nil).sha256
    }

    /// What is wrong with `after`, given what the device held `before`: every image is what it
    /// was or what the package holds — never a partial or foreign one. The application may also
    /// be gone once a new SoftDevice is in (it was built for the old one).
    func violations(before: DeviceSnapshot, after: DeviceSnapshot) -> [String] {
        let types = Set(before.images.keys).union(after.images.keys)
        return types.sorted { $0.rawValue < $1.rawValue }.compactMap { type in
            let now = after.images[type]?.sha256
            if now == before.images[type]?.sha256 || now == expected[type] { return nil }
            let softDeviceReplaced = after.images[.softdevice]?.sha256 != before.images[.softdevice]?.sha256
            if now == nil, type == .application, softDeviceReplaced { return nil }
            return "\(type.rawValue) image \(now ?? "missing") is neither the old one nor the package's"
        }
    }

    /// What is missing after an update that completed: every image of the package is installed.
    func missing(after: DeviceSnapshot) -> [String] {
        expected.sorted { $0.key.rawValue < $1.key.rawValue }.compactMap { type, hash in
            after.images[type]?.sha256 == hash ? nil : "\(type.rawValue) image is not the package's"
        }
    }
}
