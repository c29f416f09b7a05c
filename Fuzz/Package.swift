// swift-tools-version: 6.1
// The libFuzzer binary: one executable, every target of TraitBridgeFuzzing, chosen by
// TRAITBRIDGE_FUZZ_TARGET. Built with `-Xswiftc -sanitize=fuzzer,address` by scripts/fuzz.sh
// (`make fuzz`); its own package so the main build never needs the fuzzer runtime.
import PackageDescription

let package = Package(
    name: "TraitBridgeFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "TraitBridge", path: "..")],
    targets: [
        .executableTarget(
            name: "traitbridge-fuzz",
            dependencies: [.product(name: "TraitBridgeFuzzing", package: "TraitBridge")]
        ),
    ]
)
