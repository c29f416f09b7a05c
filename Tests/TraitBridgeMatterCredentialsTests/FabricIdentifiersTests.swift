import Crypto
import Testing
import TraitBridgeTesting

@testable import TraitBridgeMatterCredentials

/// The fabric's derived identifiers against the Matter spec's examples as connectedhomeip's tests encode them.
@Suite("Fabric identifiers")
struct FabricIdentifiersTests {
    /// The spec's example root public key and fabric id (Operational Discovery), as in connectedhomeip
    /// `src/crypto/tests/TestChipCryptoPAL.cpp` `TestCompressedFabricIdentifier` (`kRootPublicKey`,
    /// `kFabricId`) and `src/protocols/secure_channel/tests/TestCASESession.cpp` (`kRootPubKeyFromSpec`,
    /// `kFabricIdFromSpec`), project-chip/connectedhomeip@ecbcab13 and @56abc917.
    static let rootPublicKey = [UInt8](
        hex: """
            044a9f42b1ca4840d37292bbc7f6a7e11e22200c976fc900dbc98a7a383a641cb8
            254a2e56d4e295a847943b4e3897c4a773e930277b4d9fbede8a052686bfacfa
            """)
    static let fabricID: UInt64 = 0x2906_C908_D115_D362

    @Test("compressed fabric id: the spec's example gives 87E1B004E235A130 (TestCompressedFabricIdentifier)")
    func compressedFabricID() throws {
        #expect(
            try FabricIdentifiers.compressedFabricID(rootPublicKey: Self.rootPublicKey, fabricID: Self.fabricID)
                == 0x87E1_B004_E235_A130)
    }

    @Test("IPK: the spec's epoch key on fabric 87E1B004E235A130 (TestGroupDataProvider.cpp TestIpk)")
    func operationalGroupKey() throws {
        // connectedhomeip src/credentials/tests/TestGroupDataProvider.cpp, TestIpk: kIpkEpochKeyFromSpec with
        // kCompressedFabricId1 gives kExpectedIpkFromSpec (project-chip/connectedhomeip@bc0bf59f).
        let epochKey = SymmetricKey(data: [UInt8](hex: "235bf7e62823d358dca4ba50b1535f4b"))
        let ipk = try FabricIdentifiers.operationalGroupKey(
            epochKey: epochKey, compressedFabricID: 0x87E1_B004_E235_A130)
        #expect(ipk.withUnsafeBytes { Array($0) }.hex == "a6f5306baf6d050af23ba4bd6b9dd960")
    }

    /// TestCASESession.cpp `TestCASEDestinationIdGeneration`: kIpkOperationalGroupKeyFromSpec,
    /// kInitiatorRandomFromSpec, kNodeIdFromSpec and kExpectedDestinationIdFromSpec.
    static var ipk: SymmetricKey { SymmetricKey(data: [UInt8](hex: "9bc61cd9c62a2df6d64dfcaa9dc472d4")) }
    static let initiatorRandom = [UInt8](hex: "7e171231568dfa17206b3accf8faec2f4d21b580113196f47c7c4deb810a73dc")
    static let nodeID: UInt64 = 0xCD55_44AA_7B13_EF14
    static let expectedDestinationID = "dc35dd5fc9134cc5544538c9c3fc4297c1ec3370c839136a80e10796451d4c53"

    @Test("CASE destination id: the spec's example gives dc35dd5f… (TestCASESession.cpp)")
    func destinationID() throws {
        let id = try FabricIdentifiers.destinationID(
            ipk: Self.ipk, initiatorRandom: Self.initiatorRandom, rootPublicKey: Self.rootPublicKey,
            fabricID: Self.fabricID, nodeID: Self.nodeID)
        #expect(id.hex == Self.expectedDestinationID)
    }

    @Test("a received destination id matches only the right node, compared in constant time")
    func matchesDestinationID() {
        let received = [UInt8](hex: Self.expectedDestinationID)
        func matches(_ id: [UInt8], node: UInt64) -> Bool {
            FabricIdentifiers.isDestinationID(
                id, ipk: Self.ipk, initiatorRandom: Self.initiatorRandom, rootPublicKey: Self.rootPublicKey,
                fabricID: Self.fabricID, nodeID: node)
        }
        #expect(matches(received, node: Self.nodeID))
        #expect(!matches(received, node: Self.nodeID + 1))
        #expect(!matches(Array(received.dropLast()), node: Self.nodeID))
    }

    @Test("inputs of the wrong size are refused")
    func refusesSizes() {
        #expect(throws: FabricIdentifiers.InputError.rootPublicKey(byteCount: 64)) {
            try FabricIdentifiers.compressedFabricID(rootPublicKey: Array(Self.rootPublicKey.dropFirst()), fabricID: 1)
        }
        #expect(throws: FabricIdentifiers.InputError.initiatorRandom(byteCount: 31)) {
            try FabricIdentifiers.destinationID(
                ipk: Self.ipk, initiatorRandom: Array(Self.initiatorRandom.dropLast()),
                rootPublicKey: Self.rootPublicKey,
                fabricID: Self.fabricID, nodeID: Self.nodeID)
        }
    }
}
