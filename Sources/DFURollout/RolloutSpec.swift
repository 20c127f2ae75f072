import Foundation

/// What an operator creates: a rollout's packages, devices and limits (docs/rollout.md).
public struct RolloutSpec: Sendable, Equatable {
    /// Unique within a store; the commands name a rollout by it.
    public var name: String
    public var packages: [RolloutPackage]
    /// In inventory order: the first `canary` of them are the canary.
    public var devices: [RolloutDevice]
    /// The first N devices run alone; the rest are claimed only once every one of them ended
    /// `completed` or `skipped`. 0: no canary.
    public var canary: Int
    /// The rollout halts once this many devices have failed. nil: no limit.
    public var maxFailures: Int?
    /// How many devices one gateway updates at once.
    public var concurrency: Int

    public init(
        name: String, packages: [RolloutPackage], devices: [RolloutDevice], canary: Int = 0,
        maxFailures: Int? = nil, concurrency: Int = 4
    ) {
        self.name = name
        self.packages = packages
        self.devices = devices
        self.canary = canary
        self.maxFailures = maxFailures
        self.concurrency = concurrency
    }
}

/// A firmware package, named in the store by the SHA-256 of its bytes.
public struct RolloutPackage: Sendable, Equatable {
    /// Lowercase hex.
    public var sha256: String
    /// The name it had in the inventory, for people.
    public var name: String
    public var bytes: Data

    /// A package whose digest is computed from `bytes`.
    public init(name: String, bytes: Data) {
        self.init(sha256: PackageDigest.sha256Hex(of: bytes), name: name, bytes: bytes)
    }

    /// A package whose digest the caller states; the store refuses it if the bytes differ.
    public init(sha256: String, name: String, bytes: Data) {
        self.sha256 = sha256.lowercased()
        self.name = name
        self.bytes = bytes
    }
}

/// One device of a rollout.
public struct RolloutDevice: Sendable, Equatable {
    /// The device as the inventory names it (its address).
    public var device: String
    /// The package it may get, by digest; rules may choose among several (`rules`).
    public var packageSHA256: String
    /// The inventory's entry for this device (rules, options) as JSON, which the store keeps
    /// as it is for the gateway.
    public var entry: Data

    public init(device: String, packageSHA256: String, entry: Data = Data("{}".utf8)) {
        self.device = device
        self.packageSHA256 = packageSHA256.lowercased()
        self.entry = entry
    }
}
