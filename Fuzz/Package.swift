// swift-tools-version: 6.0
// libFuzzer targets for the decoders of dfu-update; built apart from the main package so that its
// `swift build` and `swift test` never see them. Build and run through scripts/fuzz.sh
// (docs/fuzzing.md): each target needs `--sanitize=fuzzer --sanitize=address`.
import PackageDescription

/// One executable per libFuzzer entry point (`LLVMFuzzerTestOneInput`).
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: "Sources/\(name)")
}

let package = Package(
    name: "dfu-update-fuzz",
    dependencies: [.package(name: "dfu-update", path: "..")],
    targets: [
        fuzzTarget("FuzzPackageReader", [.product(name: "NordicDFU", package: "dfu-update")]),
        fuzzTarget("FuzzSecureInitPacket", [.product(name: "NordicDFU", package: "dfu-update")]),
        fuzzTarget("FuzzLegacyInitPacket", [.product(name: "NordicDFU", package: "dfu-update")]),
        fuzzTarget("FuzzIntelHex", [.product(name: "NordicDFU", package: "dfu-update")]),
        fuzzTarget("FuzzResponses", [.product(name: "NordicDFU", package: "dfu-update")]),
        fuzzTarget("FuzzSMP", [.product(name: "MCUmgr", package: "dfu-update")]),
        // The D-Bus module is no product of its own; BlueZ brings it.
        fuzzTarget("FuzzDBusMessage", [.product(name: "BlueZ", package: "dfu-update")]),
    ]
)
