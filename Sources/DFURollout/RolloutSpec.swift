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
    /// The inventory the rollout was made from, whose rules choose the package of a device
    /// without one; nil when every device names its package.
    public var inventory: RolloutInventory?

    public init(
        name: String, packages: [RolloutPackage], devices: [RolloutDevice], canary: Int = 0,
        maxFailures: Int? = nil, concurrency: Int = 4, inventory: RolloutInventory? = nil
    ) {
        self.name = name
        self.packages = packages
        self.devices = devices
        self.canary = canary
        self.maxFailures = maxFailures
        self.concurrency = concurrency
        self.inventory = inventory
    }
}

/// A firmware package, named in the store by the SHA-256 of its bytes.
public struct RolloutPackage: Sendable, Equatable {
    /// Lowercase hex.
    public var sha256: String
    /// The path it had in the inventory (resolved against the inventory's folder).
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
    /// The package it gets, by digest; nil: the inventory's rules choose once the gateway has
    /// read the device's versions.
    public var packageSHA256: String?
    /// Its entry of the rollout's inventory, which a gateway reads when it claims the device
    /// instead of the whole inventory: the entry's own bytes when the inventory has an
    /// `entryFrame` (which makes them an inventory file of that entry alone, with the defaults
    /// and rules), else such a file itself; nil for a rollout made without an inventory.
    public var inventoryEntry: Data?

    public init(device: String, packageSHA256: String?, inventoryEntry: Data? = nil) {
        self.device = device
        self.packageSHA256 = packageSHA256?.lowercased()
        self.inventoryEntry = inventoryEntry
    }
}

/// An inventory file as it was given, for the gateways to read its rules and options as `fleet`
/// does. Package paths in it are relative to `folder`; the store names each package by the path
/// as it resolves there (`RolloutPackage.name`).
public struct RolloutInventory: Sendable, Equatable {
    public var bytes: Data
    /// The folder the inventory was in, as an absolute path.
    public var folder: String
    /// What turns a device's entry into an inventory file of that entry alone, kept once for
    /// the rollout rather than with each device; nil when each device's entry is such a file.
    public var entryFrame: InventoryEntryFrame?

    public init(bytes: Data, folder: String, entryFrame: InventoryEntryFrame? = nil) {
        self.bytes = bytes
        self.folder = folder
        self.entryFrame = entryFrame
    }
}

/// The bytes of an inventory before and after one device's entry: the inventory's other members
/// (defaults, rules) around a device list of that entry alone, or a CSV inventory's header row
/// and the end of the entry's row. A rollout keeps it once, so that what it keeps per device
/// does not grow with the inventory's rules.
public struct InventoryEntryFrame: Sendable, Equatable {
    public var prefix: Data
    public var suffix: Data

    public init(prefix: Data, suffix: Data) {
        self.prefix = prefix
        self.suffix = suffix
    }

    /// The frame a store keeps as two values, if it keeps one (an empty value may be kept as
    /// none: SQLite binds empty bytes as NULL; a frame of two empty values changes nothing).
    package init?(storedPrefix prefix: Data?, suffix: Data?) {
        guard prefix != nil || suffix != nil else { return nil }
        self.init(prefix: prefix ?? Data(), suffix: suffix ?? Data())
    }

    /// The inventory file of `entry` alone.
    public func file(of entry: Data) -> Data { prefix + entry + suffix }
}

/// Some of a rollout's inventory entries (`RolloutStore.inventoryEntries`), by device name, the
/// folder the package paths in them are relative to (`RolloutInventory.folder`) and the frame
/// that makes each a file (`RolloutInventory.entryFrame`), if the rollout has one.
public struct RolloutInventoryEntries: Sendable, Equatable {
    public var folder: String
    public var entries: [String: Data]
    public var frame: InventoryEntryFrame?

    public init(folder: String, entries: [String: Data], frame: InventoryEntryFrame? = nil) {
        self.folder = folder
        self.entries = entries
        self.frame = frame
    }

    /// The inventory file of `device`'s entry alone; nil when it is not among the entries.
    public func file(of device: String) -> Data? {
        guard let entry = entries[device] else { return nil }
        return frame?.file(of: entry) ?? entry
    }
}

/// A package of a rollout without its bytes: its name (the path as the inventory resolves it)
/// and its digest (lowercase hex).
public struct PackageName: Sendable, Equatable {
    public var name: String
    public var sha256: String

    public init(name: String, sha256: String) {
        self.name = name
        self.sha256 = sha256
    }
}
