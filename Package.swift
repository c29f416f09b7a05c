// swift-tools-version: 6.2
// TraitBridge: an MQTT device bridge with one model of device types and traits.
// Module cut and dependency direction: ../shared/design/ARCHITECTURE.md §2 (mirrored in README.md).
import PackageDescription

/// Every target of ours: Swift 6 with these upcoming features, and no warning (a warning in our own
/// modules fails the build, tests included; dependencies' warnings are theirs).
let ours: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "TraitBridge",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "traitbridge", targets: ["traitbridge"]),
        .library(name: "TraitBridgeModel", targets: ["TraitBridgeModel"]),
        .library(name: "TraitBridgeJSON", targets: ["TraitBridgeJSON"]),
        .library(name: "TraitBridgeMapping", targets: ["TraitBridgeMapping"]),
        // The fuzz targets, for the libFuzzer binary of Fuzz/ (`make fuzz`).
        .library(name: "TraitBridgeFuzzing", targets: ["TraitBridgeFuzzing"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/attaswift/BigInt", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.0.0"),
    ],
    targets: [
        // C libraries, each behind its own system-library target (pkg-config + Debian provider).
        .systemLibrary(
            name: "CJSONC",
            pkgConfig: "json-c",
            providers: [.apt(["libjson-c-dev"])]
        ),
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),

        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),

        // json-c as a Swift value; the only module that imports CJSONC.
        .target(name: "TraitBridgeJSON", dependencies: ["CJSONC"], swiftSettings: ours),
        // The shipped mappings and the build's commit, generated into the binary before each build.
        .target(name: "TraitBridgeEmbedded", swiftSettings: ours, plugins: ["EmbedMappings"]),
        .plugin(name: "EmbedMappings", capability: .buildTool()),
        // Value types only: homes, rooms, devices, device types, traits, metadata, connectivity.
        .target(name: "TraitBridgeModel", swiftSettings: ours),
        // Loads and validates mappings/ (catalog now; source and cloud tables later).
        .target(
            name: "TraitBridgeMapping",
            dependencies: ["TraitBridgeModel", "TraitBridgeJSON"],
            swiftSettings: ours
        ),
        // One folder per source family: a message in, model updates out. Never sees the broker.
        .target(
            name: "TraitBridgeSources",
            dependencies: ["TraitBridgeModel", "TraitBridgeMapping", "TraitBridgeJSON"],
            swiftSettings: ours
        ),
        // Google Cloud-to-cloud: SYNC/QUERY import and export, EXECUTE translation. Never sees the broker.
        .target(
            name: "TraitBridgeCloud",
            dependencies: ["TraitBridgeModel", "TraitBridgeMapping", "TraitBridgeJSON"],
            swiftSettings: ours
        ),
        // Home Assistant MQTT discovery out: unified devices as discovery configs. Pure; the engine publishes.
        .target(
            name: "TraitBridgeHomeAssistant",
            dependencies: ["TraitBridgeModel", "TraitBridgeMapping", "TraitBridgeJSON"],
            swiftSettings: ours
        ),
        // A value in a person's words (22.2 °C, on, locked, 40 % open) from the catalog's metadata and
        // mappings/presentation: one presentation for the CLI, the web UI and the API. Pure.
        .target(
            name: "TraitBridgePresentation",
            dependencies: ["TraitBridgeModel", "TraitBridgeMapping", "TraitBridgeJSON"],
            swiftSettings: ours
        ),
        // The registry on disk: SQLite through GRDB.
        .target(
            name: "TraitBridgeStore",
            dependencies: [
                "TraitBridgeModel", "TraitBridgeJSON", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: ours
        ),
        // libmosquitto: connect, reconnect, last will, publish, subscribe. The only module importing CMosquitto.
        .target(name: "TraitBridgeMQTT", dependencies: ["CMosquitto"], swiftSettings: ours),
        // Automations: definitions, HomeKit's timer rules, sunrise and sunset, and the scheduler
        // (a pure state machine: time and device changes in, fires out). Never sees the broker.
        .target(
            name: "TraitBridgeAutomation",
            dependencies: ["TraitBridgeModel", "TraitBridgeMapping", "TraitBridgeJSON"],
            swiftSettings: ours
        ),
        // The running bridge: registry, dispatch, connectivity chain, publication, commands.
        .target(
            name: "TraitBridgeEngine",
            dependencies: [
                "TraitBridgeModel", "TraitBridgeMapping", "TraitBridgeJSON", "TraitBridgeSources", "TraitBridgeMQTT",
                "TraitBridgeStore", "TraitBridgeCloud", "TraitBridgeAutomation", "TraitBridgeHomeAssistant",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: ours
        ),
        // HTTP: Google's smart-home fulfillment (`POST /smarthome`) and OAuth account linking, on
        // Hummingbird. The engine knows nothing of HTTP; this module calls the running Bridge.
        .target(
            name: "TraitBridgeHTTP",
            dependencies: [
                "TraitBridgeEngine", "TraitBridgeStore", "TraitBridgeJSON", "TraitBridgeCloud",
                "TraitBridgePresentation",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: ours
        ),
        // Matter's TLV: the codec every Matter message and certificate is written in. No dependency.
        .target(name: "TraitBridgeMatterCodec", swiftSettings: ours),
        // Matter's cryptography: AES-128-CCM, PBKDF2, SPAKE2+ (PASE) on OpenSSL's libcrypto (the only
        // module importing CLibCrypto) and swift-crypto.
        .target(
            name: "TraitBridgeMatterCrypto",
            dependencies: ["CLibCrypto", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: ours
        ),
        // Matter's Secure Channel: onboarding payload (QR, manual code), PASE messages, StatusReport, PASE responder.
        .target(
            name: "TraitBridgeMatterSecureChannel",
            dependencies: [
                "TraitBridgeMatterCodec", "TraitBridgeMatterCrypto", "TraitBridgeMatterTransport",
                "TraitBridgeMatterCredentials", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: ours
        ),
        // Matter's message layer: headers, AES-CCM framing, counters and replay windows, MRP, exchanges.
        // Pure values; time and randomness come in from the caller.
        .target(
            name: "TraitBridgeMatterTransport",
            dependencies: ["TraitBridgeMatterCrypto", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: ours
        ),
        // Matter's operational credentials: certificates (TLV ↔ X.509), chain checks, fabric ids, NOCSR. Pure values.
        .target(
            name: "TraitBridgeMatterCredentials",
            dependencies: [
                "TraitBridgeMatterCodec", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: ours
        ),
        // Matter's commissioning: fail-safe, fabric table, attestation, root-endpoint clusters as plain values.
        .target(
            name: "TraitBridgeMatterCommissioning",
            dependencies: [
                "TraitBridgeMatterCodec", "TraitBridgeMatterCredentials", "TraitBridgeMatterInteraction",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: ours
        ),
        // Matter's Interaction Model: read/subscribe/write/invoke messages, path expansion, report chunking.
        .target(name: "TraitBridgeMatterInteraction", dependencies: ["TraitBridgeMatterCodec"], swiftSettings: ours),
        // TraitBridge's own Matter device: the node (sessions, MRP, PASE as a pure value) and its UDP edge.
        .target(
            name: "TraitBridgeMatterDevice",
            dependencies: [
                "TraitBridgeMatterCodec", "TraitBridgeMatterCrypto", "TraitBridgeMatterTransport",
                "TraitBridgeMatterSecureChannel", "TraitBridgeMatterCredentials", "TraitBridgeMatterInteraction",
                "TraitBridgeMatterCommissioning", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                "TraitBridgeDNSSD",
            ],
            swiftSettings: ours
        ),
        // The Matter bridge: unified devices as bridged endpoints (catalog + mappings/matter), numbered for good.
        .target(
            name: "TraitBridgeMatterBridge",
            dependencies: [
                "TraitBridgeModel", "TraitBridgeMapping", "TraitBridgeStore", "TraitBridgeMatterDevice",
                "TraitBridgeMatterCodec", "TraitBridgeMatterInteraction", "TraitBridgeCloud",
            ],
            swiftSettings: ours
        ),
        // DNS-SD announcements through Avahi (avahi-publish): HomeKit's and the Matter device's services.
        .target(
            name: "TraitBridgeDNSSD",
            dependencies: ["TraitBridgeLocalBroker", .product(name: "Logging", package: "swift-log")],
            swiftSettings: ours
        ),
        // HomeKit Accessory Protocol over IP: pairing (SRP, Ed25519, X25519), the encrypted sessions,
        // accessories from the unified model (mappings/homekit), events, and mDNS through Avahi.
        .target(
            name: "TraitBridgeHomeKit",
            dependencies: [
                "TraitBridgeEngine", "TraitBridgeStore", "TraitBridgeJSON", "TraitBridgeModel", "TraitBridgeMapping",
                "TraitBridgeCloud", "TraitBridgeDNSSD", .product(name: "BigInt", package: "BigInt"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: ours
        ),
        // A Matter Server's WebSocket (python-matter-server): the Matter plug-in's edge connection.
        .target(
            name: "TraitBridgeMatterServer",
            dependencies: [
                "TraitBridgeEngine",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: ours
        ),
        // The command tree.
        .target(
            name: "TraitBridgeCLI",
            dependencies: [
                "TraitBridgeEngine",
                "TraitBridgeAutomation",
                "TraitBridgeHTTP",
                "TraitBridgePresentation",
                "TraitBridgeHomeKit",
                "TraitBridgeHomeAssistant",
                "TraitBridgeMatterServer",
                "TraitBridgeMatterDevice",
                "TraitBridgeMatterBridge",
                "TraitBridgeMatterCodec",
                "TraitBridgeMatterInteraction",
                "TraitBridgeMatterCommissioning",
                "TraitBridgeMatterCredentials",
                "TraitBridgeMatterSecureChannel",
                "TraitBridgeCloud",
                "TraitBridgeMQTT",
                "TraitBridgeStore",
                "TraitBridgeMapping",
                "TraitBridgeModel",
                "TraitBridgeJSON",
                "TraitBridgeSources",
                "TraitBridgeEmbedded",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                "TraitBridgeSimulator",
                "TraitBridgeLocalBroker",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: ours
        ),
        .executableTarget(name: "traitbridge", dependencies: ["TraitBridgeCLI"], swiftSettings: ours),

        // A private mosquitto on a free loopback port, started and stopped by PID: the demo and the tests.
        // And a real Matter Server (python-matter-server in .build-matter/venv) the same way.
        .target(name: "TraitBridgeLocalBroker", dependencies: ["TraitBridgeMQTT"], swiftSettings: ours),
        // Simulated devices that speak zigbee2mqtt, Tasmota and Shelly on a broker (`traitbridge simulate`).
        .target(
            name: "TraitBridgeSimulator", dependencies: ["TraitBridgeJSON", "TraitBridgeMQTT"], swiftSettings: ours),
        // Test support: the private broker, a test MQTT client, polling helpers, paths.
        .target(
            name: "TraitBridgeTesting", dependencies: ["TraitBridgeMQTT", "TraitBridgeLocalBroker"],
            swiftSettings: ours),
        // Every entry point that takes outside bytes, as a function of bytes: run by libFuzzer
        // (Fuzz/, `make fuzz`) and replayed from Fuzz/crashers and the corpora by the tests.
        .target(
            name: "TraitBridgeFuzzing",
            dependencies: [
                "TraitBridgeEngine", "TraitBridgeCloud", "TraitBridgeMapping", "TraitBridgeModel", "TraitBridgeJSON",
                "TraitBridgeCLI", "TraitBridgeSources", "TraitBridgeHomeAssistant", "TraitBridgePresentation",
                "TraitBridgeStore", "TraitBridgeHTTP", "TraitBridgeHomeKit", "TraitBridgeMatterDevice",
                "TraitBridgeMatterSecureChannel", "TraitBridgeMatterTransport", "TraitBridgeMatterInteraction",
                "TraitBridgeMatterCommissioning", "TraitBridgeMatterCodec", "TraitBridgeMatterCredentials",
                // connectedhomeip's test certificates, for the `matter-case` target's fabric.
                "TraitBridgeTesting", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: ours
        ),
        // Release-mode micro-benchmarks: `make bench` (never run by the tests).
        .executableTarget(
            name: "TraitBridgeBench",
            dependencies: [
                "TraitBridgeJSON", "TraitBridgeMapping", "TraitBridgeModel", "TraitBridgeEngine", "TraitBridgeCloud",
                "TraitBridgeStore", "TraitBridgeSources", "TraitBridgeMatterDevice", "TraitBridgeMatterCodec",
                "TraitBridgeMatterCommissioning", "TraitBridgeMatterInteraction", "TraitBridgeMatterSecureChannel",
                "TraitBridgeMatterTransport", "TraitBridgeMatterCredentials", "TraitBridgeMatterBridge",
                "TraitBridgeHomeAssistant",
                // connectedhomeip's test certificates, for the CASE handshakes' fabric.
                "TraitBridgeTesting", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: ours
        ),

        .testTarget(
            name: "TraitBridgeJSONTests", dependencies: ["TraitBridgeJSON", "TraitBridgeTesting"],
            swiftSettings: ours),
        .testTarget(
            name: "TraitBridgeMQTTTests", dependencies: ["TraitBridgeMQTT", "TraitBridgeTesting"],
            swiftSettings: ours),
        .testTarget(
            name: "TraitBridgeSourcesTests",
            dependencies: [
                "TraitBridgeSources", "TraitBridgeMapping", "TraitBridgeModel", "TraitBridgeJSON", "TraitBridgeTesting",
            ],
            exclude: ["Fixtures"],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeEngineTests",
            dependencies: [
                "TraitBridgeEngine", "TraitBridgeTesting", "TraitBridgeMQTT", "TraitBridgeStore", "TraitBridgeMapping",
                "TraitBridgeModel", "TraitBridgeAutomation", "TraitBridgeHomeAssistant", "TraitBridgeCloud",
                "TraitBridgeJSON", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeHomeAssistantTests",
            dependencies: [
                "TraitBridgeHomeAssistant", "TraitBridgeMapping", "TraitBridgeModel", "TraitBridgeJSON",
                "TraitBridgeTesting",
            ],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeAutomationTests",
            dependencies: ["TraitBridgeAutomation", "TraitBridgeModel", "TraitBridgeJSON", "TraitBridgeTesting"],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeCloudTests",
            dependencies: [
                "TraitBridgeCloud", "TraitBridgeMapping", "TraitBridgeModel", "TraitBridgeJSON", "TraitBridgeTesting",
            ],
            exclude: ["Fixtures"],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeSimulatorTests",
            dependencies: ["TraitBridgeSimulator", "TraitBridgeJSON", "TraitBridgeTesting", "TraitBridgeMQTT"],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeFuzzingTests", dependencies: ["TraitBridgeFuzzing", "TraitBridgeMatterSecureChannel"],
            swiftSettings: ours),
        .testTarget(
            name: "TraitBridgeHTTPTests", dependencies: ["TraitBridgeHTTP", "TraitBridgeStore"], swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeHomeKitTests",
            dependencies: [
                "TraitBridgeHomeKit", "TraitBridgeMapping", "TraitBridgeModel", "TraitBridgeJSON", "TraitBridgeCloud",
                "TraitBridgeTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeMatterCodecTests", dependencies: ["TraitBridgeMatterCodec", "TraitBridgeTesting"],
            swiftSettings: ours),
        .testTarget(
            name: "TraitBridgeMatterCryptoTests",
            dependencies: [
                "TraitBridgeMatterCrypto", "TraitBridgeTesting", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeMatterSecureChannelTests",
            dependencies: [
                "TraitBridgeMatterSecureChannel", "TraitBridgeMatterCodec", "TraitBridgeMatterCrypto",
                "TraitBridgeMatterTransport", "TraitBridgeMatterCredentials", "TraitBridgeTesting",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeMatterBridgeTests",
            dependencies: [
                "TraitBridgeMatterBridge", "TraitBridgeMatterDevice", "TraitBridgeMatterCodec", "TraitBridgeModel",
                "TraitBridgeMapping", "TraitBridgeStore", "TraitBridgeTesting", "TraitBridgeCloud",
                "TraitBridgeMatterInteraction",
            ],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeMatterDeviceTests",
            dependencies: [
                "TraitBridgeMatterDevice", "TraitBridgeMatterSecureChannel", "TraitBridgeMatterTransport",
                "TraitBridgeMatterCrypto", "TraitBridgeMatterCodec", "TraitBridgeLocalBroker", "TraitBridgeTesting",
                "TraitBridgeMatterCommissioning", "TraitBridgeMatterInteraction", "TraitBridgeMatterCredentials",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                "TraitBridgeDNSSD",
            ],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeMatterInteractionTests",
            dependencies: ["TraitBridgeMatterInteraction", "TraitBridgeMatterCodec", "TraitBridgeTesting"],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeMatterCommissioningTests",
            dependencies: [
                "TraitBridgeMatterCommissioning", "TraitBridgeMatterCredentials", "TraitBridgeMatterCodec",
                "TraitBridgeMatterInteraction", "TraitBridgeTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeMatterCredentialsTests",
            dependencies: [
                "TraitBridgeMatterCredentials", "TraitBridgeMatterCodec", "TraitBridgeTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeMatterTransportTests",
            dependencies: [
                "TraitBridgeMatterTransport", "TraitBridgeMatterCrypto", "TraitBridgeTesting",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: ours
        ),
        .testTarget(name: "TraitBridgeModelTests", dependencies: ["TraitBridgeModel"], swiftSettings: ours),
        .testTarget(
            name: "TraitBridgePresentationTests",
            dependencies: ["TraitBridgePresentation", "TraitBridgeMapping", "TraitBridgeModel", "TraitBridgeJSON"],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeMappingTests",
            dependencies: ["TraitBridgeMapping", "TraitBridgeModel", "TraitBridgeJSON"],
            resources: [.copy("Fixtures")],
            swiftSettings: ours
        ),
        .testTarget(
            name: "TraitBridgeCLITests",
            dependencies: [
                "TraitBridgeCLI", "traitbridge", "TraitBridgeTesting", "TraitBridgeMQTT", "TraitBridgeSimulator",
                "TraitBridgeHomeKit", "TraitBridgeMatterCommissioning", "TraitBridgeLocalBroker",
                "TraitBridgeJSON", "TraitBridgeStore", "TraitBridgeSources", "TraitBridgeMapping", "TraitBridgeModel",
                "TraitBridgeAutomation", "TraitBridgeMatterBridge", "TraitBridgePresentation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: ours
        ),
    ]
)
