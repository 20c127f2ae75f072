// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "dfu-update",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "FirmwareUpdate", targets: ["FirmwareUpdate"]),
        .library(name: "NordicDFU", targets: ["NordicDFU"]),
        .library(name: "DFUFleet", targets: ["DFUFleet"]),
        .library(name: "DFUGateway", targets: ["DFUGateway"]),
        .library(name: "DFUSimulator", targets: ["DFUSimulator"]),
        .library(name: "BlueZ", targets: ["BlueZ"]),
        .library(name: "MCUmgr", targets: ["MCUmgr"]),
        .library(name: "DFURollout", targets: ["DFURollout"]),
        .library(name: "DFURolloutPostgres", targets: ["DFURolloutPostgres"]),
        .library(name: "GATTTesting", targets: ["GATTTesting"]),
        .library(name: "RolloutStoreTesting", targets: ["RolloutStoreTesting"]),
        .executable(name: "dfu-update", targets: ["dfu-update"]),
        .executable(name: "dfu-bench", targets: ["dfu-bench"]),
        .executable(name: "dfu-sim", targets: ["dfu-sim"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // C libraries from Debian, found through pkg-config.
        .systemLibrary(
            name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        // zlib, only for dfu-bench to compare our CRC-32 with.
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // CRC-32 by carry-less multiplication (x86-64 PCLMULQDQ), behind NordicDFU's CRC32.
        .target(name: "CCRC32Folding"),
        // Several datagrams in one system call (sendmmsg), behind BlueZ's packet sockets.
        .target(name: "CDatagrams"),

        // Small concurrency and formatting helpers the modules share (package access only), and
        // the version with the commit it was built from.
        .target(name: "DFUSupport", plugins: ["BuildInfo"]),
        // Records the commit the package is built from (`--version`).
        .plugin(name: "BuildInfo", capability: .buildTool()),
        // A typed, async Swift face of libdbus. Knows nothing of Bluetooth.
        .target(name: "DBus", dependencies: ["CDBus"]),
        // The vocabulary of a GATT central. Knows nothing of D-Bus or Nordic.
        .target(name: "GATT", dependencies: ["DFUSupport"]),
        // GATT implemented on org.bluez.
        .target(name: "BlueZ", dependencies: ["CDatagrams", "DFUSupport", "DBus", "GATT"]),
        // The library users import: one update of either family (Nordic DFU, MCUmgr over SMP)
        // behind `FirmwareUpdater`, and `FirmwarePackage`, which tells the families' files apart.
        .target(
            name: "FirmwareUpdate",
            dependencies: [
                "DFUSupport", "GATT", "MCUmgr", "NordicDFU",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Nordic DFU's wire formats and package reading only (Secure and Legacy DFU): zip,
        // manifest, init packets, hex, signatures, requests and responses, CRCs.
        .target(
            name: "NordicDFU",
            dependencies: [
                "DFUSupport",
                "CZip", "CCRC32Folding", "GATT",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Package/dfu-cc.proto"]),
        // MCUmgr / SMP image management and MCUboot images: wire formats and package reading only.
        .target(
            name: "MCUmgr",
            dependencies: ["DFUSupport", "GATT", .product(name: "Crypto", package: "swift-crypto")]),
        // Many devices at once, above the protocol families: inventories, scheduling, reports;
        // the canary and failure limit are the rollout rules (DFURollout).
        .target(
            name: "DFUFleet",
            dependencies: [
                "DFURollout", "DFUSupport", "FirmwareUpdate", "NordicDFU", "MCUmgr", "GATT",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]),
        // One rollout shared by many gateways: the store's interface and its embedded (SQLite) back end.
        .target(
            name: "DFURollout",
            dependencies: ["CSQLite", "DFUSupport", .product(name: "Crypto", package: "swift-crypto")]),
        // The rollout store on PostgreSQL, for many gateways.
        .target(
            name: "DFURolloutPostgres",
            dependencies: [
                "DFURollout", "DFUSupport", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // `rollout serve`: the rollouts as web pages (routes, HTML, the SVG plot), read from a store.
        .target(
            name: "RolloutPage",
            dependencies: [
                "DFURollout", "DFUSupport", "FirmwareUpdate", "NordicDFU",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // A gateway: takes the devices it reaches from a store's rollouts and updates them.
        .target(
            name: "DFUGateway",
            dependencies: [
                "DFUFleet", "DFURollout", "DFUSupport", "FirmwareUpdate", "NordicDFU", "GATT",
                .product(name: "Metrics", package: "swift-metrics"),
            ]),
        // `--metrics HOST:PORT`: the Prometheus backend for swift-metrics and a small HTTP server
        // for `/metrics`. Only the commands use it; the libraries emit through swift-metrics alone.
        .target(
            name: "MetricsEndpoint",
            dependencies: [
                "DFUSupport",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // org.bluez on a private bus in front of one simulated device, without a radio
        // (`dfu-sim --bluetoothd-stand-in`).
        .target(
            name: "BlueZStandIn", dependencies: ["BlueZ", "DBus", "DFUSimulator", "DFUSupport", "GATT"]),
        // A `dfu-sim` process started, read and stopped: for the benchmarks and the system tests.
        .target(name: "SimulatorProcess", dependencies: ["DFUSupport"]),
        // A model of an nRF5 device, reached through the GATT protocols.
        .target(
            name: "DFUSimulator",
            dependencies: [
                "DFUSupport", "NordicDFU", "GATT", "MCUmgr",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // The command-line contract's one way to run a command and report a failure, shared by
        // dfu-update and dfu-sim: `runReporting` (an unknown option first, then `OptionChecks`),
        // `usageLine`.
        .target(
            name: "CommandLineContract",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // `--simulate` and the `--sim-*` options, shared by dfu-update and dfu-sim.
        .target(
            name: "SimulatorCommandLine",
            dependencies: [
                "CommandLineContract", "DFUSimulator", "NordicDFU", "GATT", "MCUmgr",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // Simulated devices as a fleet's adapters and inventory entries (`simulate` objects),
        // for dfu-update's fleet and gateway, dfu-bench and the tests.
        .target(
            name: "SimulatedFleet",
            dependencies: ["DFUFleet", "DFUSimulator", "GATT", "SimulatorCommandLine"]),

        .executableTarget(
            name: "dfu-update",
            dependencies: [
                "DFUSupport",
                "FirmwareUpdate", "NordicDFU", "MCUmgr", "DFUFleet", "DFUSimulator", "BlueZ",
                "SimulatedFleet", "SimulatorCommandLine", "CommandLineContract",
                "DFURollout", "DFURolloutPostgres", "DFUGateway", "MetricsEndpoint", "RolloutPage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .executableTarget(
            name: "dfu-bench",
            dependencies: [
                "DFUSupport",
                "FirmwareUpdate", "NordicDFU", "MCUmgr", "DFUFleet", "DFUSimulator", "SimulatedFleet",
                "SimulatorCommandLine", "SimulatorProcess", "DFURollout", "DFURolloutPostgres",
                "BlueZ", "CZlib",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),

        // Serves a simulated device on a BlueZ adapter.
        .executableTarget(
            name: "dfu-sim",
            dependencies: [
                "BlueZStandIn", "DFUSupport",
                "NordicDFU", "DFUSimulator", "BlueZ", "DBus", "GATT", "SimulatorCommandLine",
                "CommandLineContract",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),

        // What the test targets share instead of copies: the fixture locator, a zip writer,
        // little-endian helpers, a private dbus-daemon, and runners for programs and the CLI.
        .target(
            name: "TestSupport",
            dependencies: [
                "DFUSupport", "NordicDFU", "MCUmgr", "DBus",
                .product(name: "Crypto", package: "swift-crypto"),
            ], path: "Tests/TestSupport"),
        // Fakes for tests of code above GATT: one wrapper of a real central with hooks that
        // change what it answers (refusals, faults, stale tables, vanishing devices, bonds).
        .target(name: "GATTTesting", dependencies: ["DFUSupport", "GATT"]),
        // What every rollout store must do, as XCTest cases a back end's test class runs.
        .target(name: "RolloutStoreTesting", dependencies: ["DFURollout"]),
        // glibc's count of live heap bytes, which Swift's Glibc module does not show (LeakTests).
        .target(name: "CHeapInUse", path: "Tests/CHeapInUse"),
        .testTarget(name: "GATTTests", dependencies: ["DFUSupport", "GATT"]),
        .testTarget(
            name: "NordicDFUTests",
            dependencies: [
                "DFUSupport", "FirmwareUpdate", "NordicDFU", "MCUmgr", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // The `dfu-update` binary run as users run it (through `CLIRunner`).
        .testTarget(name: "CommandLineTests", dependencies: ["TestSupport"]),
        // `dfu-update`'s own types in process: how it reports what no command anticipated.
        .testTarget(name: "DFUUpdateTests", dependencies: ["dfu-update", "CommandLineContract"]),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "TestSupport"]),
        .testTarget(
            name: "MCUmgrTests",
            dependencies: [
                "MCUmgr", "NordicDFU", "TestSupport", .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "BlueZTests",
            dependencies: ["BlueZ", "DBus", "DFUSupport", "GATT", "SimulatorProcess", "TestSupport"]),
        .testTarget(
            name: "EngineTests",
            dependencies: [
                "DFUSupport", "FirmwareUpdate", "NordicDFU", "MCUmgr", "DFUSimulator", "GATT", "GATTTesting",
                "TestSupport",
            ]),
        .testTarget(
            name: "DFUSimulatorTests",
            dependencies: [
                "DFUSupport", "DFUSimulator", "FirmwareUpdate", "MCUmgr", "NordicDFU", "GATT", "TestSupport",
            ]),
        .testTarget(
            name: "FleetTests",
            dependencies: [
                "DFUSupport", "FirmwareUpdate", "NordicDFU", "DFUFleet", "DFURollout", "DFUSimulator",
                "SimulatedFleet", "SimulatorCommandLine", "GATT", "GATTTesting", "TestSupport",
            ]),
        .testTarget(
            name: "SimulatorCommandLineTests",
            dependencies: [
                "SimulatorCommandLine", "SimulatedFleet", "DFUSimulator", "DFUFleet", "NordicDFU", "GATT",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "RolloutStoreTests",
            dependencies: [
                "DFURollout", "DFURolloutPostgres", "RolloutStoreTesting", "TestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "DFUGateway", "DFURollout", "DFUFleet", "DFUSimulator", "DFUSupport", "SimulatedFleet",
                "SimulatorCommandLine",
                "GATT", "MetricsEndpoint", "RolloutPage",
                "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
        .testTarget(
            name: "RolloutPageTests",
            dependencies: [
                "RolloutPage", "DFURollout", "FirmwareUpdate", "NordicDFU",
                "GATT", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
            ]),
        // Writes to an embedded rollout store until it is killed (RolloutStoreTests).
        .executableTarget(
            name: "rollout-store-writer", dependencies: ["DFURollout"], path: "Tests/RolloutStoreWriter"),
        .testTarget(
            name: "BlueZSystemTests",
            dependencies: [
                "CHeapInUse", "DFUSupport", "SimulatorProcess",
                "BlueZ", "DBus", "GATT", "MCUmgr", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
    ]
)
