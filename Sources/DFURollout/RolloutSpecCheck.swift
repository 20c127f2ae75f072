/// What every back end checks of a spec before storing it.
package enum RolloutSpecCheck {
    package static func validate(_ spec: RolloutSpec) throws {
        var seen = Set<String>()
        var names: [String: String] = [:]  // by digest
        for package in spec.packages {
            _ = try PackageDigest.verified(package.bytes, sha256: package.sha256)
            // a store keeps a rollout's package once, by digest, under one name
            if let first = names.updateValue(package.name, forKey: package.sha256) {
                throw RolloutStoreError.invalidSpec(
                    "the packages \(first) and \(package.name) have the same bytes (SHA-256 \(package.sha256)); "
                        + "a rollout keeps each package once: name one of them for both")
            }
        }
        let digests = Set(spec.packages.map(\.sha256))
        for device in spec.devices {
            guard seen.insert(device.device).inserted else {
                throw RolloutStoreError.invalidSpec("device \(device.device) is listed twice")
            }
            if let digest = device.packageSHA256, !digests.contains(digest) {
                throw RolloutStoreError.invalidSpec("device \(device.device) names no package of the rollout")
            }
            if device.packageSHA256 == nil && spec.inventory == nil {
                throw RolloutStoreError.invalidSpec(
                    "device \(device.device) has no package and no inventory rules")
            }
        }
        guard spec.canary >= 0, spec.concurrency > 0, (spec.maxFailures ?? 1) > 0 else {
            throw RolloutStoreError.invalidSpec("canary must be ≥ 0, concurrency and max failures > 0")
        }
    }
}
