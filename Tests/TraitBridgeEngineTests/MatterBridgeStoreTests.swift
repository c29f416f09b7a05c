import Foundation
import GRDB
import Testing
import TraitBridgeStore

/// The Matter bridge's state in the registry: written and read back whole (ids above Int64's range
/// included), replaced in one piece, and a value of the wrong kind on disk an error, never a trap; the
/// CASE resumption records and Basic Information of migration v11 too, and a v10 registry still read.
@Suite("The registry: the Matter bridge's state")
struct MatterBridgeStoreTests {
    static let record = MatterBridgeRecord(
        setup: .init(passcode: 20_202_021, discriminator: 3840, salt: Array(0..<32), iterations: 1000),
        regulatoryConfig: 0, countryCode: "DE",
        fabrics: [
            .init(
                index: 1, rootCertificate: [1, 2, 3], intermediateCertificate: nil, nodeCertificate: [4, 5],
                ipkEpochKey: [UInt8](repeating: 7, count: 16), operationalKey: [UInt8](repeating: 8, count: 32),
                vendorID: 0xFFF1, label: "home"),
            .init(
                index: 254, rootCertificate: [9], intermediateCertificate: [10, 11], nodeCertificate: [12],
                ipkEpochKey: [UInt8](repeating: 1, count: 16), operationalKey: [UInt8](repeating: 2, count: 32),
                vendorID: 0xFFFF, label: ""),
        ],
        accessControl: [
            .init(fabricIndex: 1, privilege: 5, authMode: 2, subjects: [0x1_B669, 0xFFFF_FFFD_0001_0001]),
            .init(fabricIndex: 254, privilege: 3, authMode: 2, subjects: nil),
            .init(fabricIndex: 254, privilege: 1, authMode: 2, subjects: []),
        ])

    func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tb-mtstore-\(UUID().uuidString)").path
    }

    @Test func `written and read back whole; a save replaces the fabrics and ACL`() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DeviceStore(directory: path)
        #expect(try store.matterBridge() == nil, "nothing before the first start")
        try store.saveMatterBridge(Self.record, now: Date())
        #expect(try store.matterBridge() == Self.record)
        #expect(try DeviceStore(directory: path).matterBridge() == Self.record, "a second opening reads the same")
        var targeted = Self.record
        targeted.accessControl[1].targets = [
            .init(cluster: 6, endpoint: 3, deviceType: nil), .init(cluster: nil, endpoint: nil, deviceType: 0x0100),
            .init(cluster: 0xFFF1_FC01, endpoint: 0xFFFF, deviceType: nil),
        ]
        targeted.accessControl[2].targets = []
        try store.saveMatterBridge(targeted, now: Date())
        #expect(try store.matterBridge() == targeted, "an entry's targets, none, or every one")
        var fewer = Self.record
        fewer.fabrics.removeLast()
        fewer.accessControl.removeLast(2)
        try store.saveMatterBridge(fewer, now: Date())
        #expect(try store.matterBridge() == fewer)
        let mode = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the registry holds operational keys: its owner's only")
    }

    @Test func `a damaged value is a read error that names the column`() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DeviceStore(directory: path)
        try store.saveMatterBridge(Self.record, now: Date())
        let damages = [
            ("UPDATE matterNode SET passcode = 'abc'", "passcode holds a value of another type"),
            ("UPDATE matterNode SET passcode = 1, discriminator = 70000", "discriminator is 70000, not a UInt16"),
            (
                "UPDATE matterNode SET discriminator = 1, iterations = 5; UPDATE matterFabric SET vendorID = -1",
                "vendorID"
            ),
            ("UPDATE matterFabric SET vendorID = 1; UPDATE matterAccessControl SET subjects = x'0102'", "8-byte ids"),
            (
                "UPDATE matterAccessControl SET subjects = NULL, targets = x'0102'", "targets are not 11-byte records"
            ),
        ]
        for (sql, expected) in damages {
            let queue = try DatabaseQueue(path: store.path)
            try queue.write { try $0.execute(sql: sql) }
            try queue.close()
            #expect {
                _ = try store.matterBridge()
            } throws: { error in
                "\(error)".contains(expected) && !"\(error)".contains("20202021")
            }
        }
    }

    /// `count` resumption records, least recent first: record `n` of fabric 1 or 254, node ids above
    /// Int64's range, CATs on some.
    static func resumptions(_ count: Int) -> [MatterBridgeRecord.Resumption] {
        (0..<count).map { n in
            MatterBridgeRecord.Resumption(
                resumptionID: [UInt8](repeating: UInt8(n), count: 16), sharedSecret: (0..<32).map { UInt8($0 ^ n) },
                fabricIndex: n.isMultiple(of: 2) ? 1 : 254, peerNodeID: 0xFFFF_FFFE_0000_0000 + UInt64(n),
                caseAuthenticatedTags: n.isMultiple(of: 3) ? [0xABCD_0001, 0x0000_0002] : [])
        }
    }

    @Test func `resumption records and Basic Information are kept in order, bounded, and replaced by a save`() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DeviceStore(directory: path)
        var record = Self.record
        record.resumptions = Self.resumptions(3)
        record.basicInformation = .init(
            vendorID: 0x130D, productID: 0xFFFF, nodeLabel: "Kitchen", location: "DE", configuredName: nil)
        try store.saveMatterBridge(record, now: Date())
        #expect(try DeviceStore(directory: path).matterBridge() == record, "read back whole, in order")
        #expect(try store.matterBridge()?.resumptions.last?.caseAuthenticatedTags == [])
        #expect(try store.matterBridge()?.resumptions.first?.caseAuthenticatedTags == [0xABCD_0001, 2])

        // More than the limit: the most recent are kept.
        let many = Self.resumptions(MatterBridgeRecord.resumptionLimit + 5)
        record.resumptions = many
        record.basicInformation?.nodeLabel = nil
        try store.saveMatterBridge(record, now: Date())
        let kept = try #require(try store.matterBridge())
        #expect(kept.resumptions == Array(many.suffix(MatterBridgeRecord.resumptionLimit)))
        #expect(kept.basicInformation?.nodeLabel == nil && kept.basicInformation?.location == "DE")

        // A reset's record: none kept.
        try store.saveMatterBridge(Self.record, now: Date())
        let reset = try #require(try store.matterBridge())
        #expect(reset.resumptions.isEmpty && reset.basicInformation == nil)
        #expect("\(Self.resumptions(1)[0])" == "Resumption(fabric 1, node FFFFFFFE00000000)", "no secret shown")
        var dumped = ""
        dump(Self.resumptions(1)[0], to: &dumped)
        #expect(!dumped.contains("sharedSecret") && !dumped.contains("31"), "\(dumped)")
    }

    @Test func `a registry of migration v10 opens: its state is read, with no resumption record`() throws {
        // Back to v10: the registry of v12 (holding `record`'s state) without what v11 and v12 made.
        let path = try MatterBridgesStoreTests.copyOfV12Registry()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path + "/traitbridge.sqlite")
        try queue.write { db in
            try db.execute(
                sql: "DROP TABLE matterResumption; DROP TABLE matterBasicInformation; DROP TABLE matterEndpoint")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v11:%' OR identifier LIKE 'v12:%'")
        }
        try queue.close()
        let store = try DeviceStore(directory: path)
        #expect(try store.matterBridge() == Self.record, "the v10 state reads as before")
        var record = Self.record
        record.resumptions = Self.resumptions(2)
        try store.saveMatterBridge(record, now: Date())
        #expect(try store.matterBridge()?.resumptions == record.resumptions, "and v11's tables are there")
    }

    @Test func `a damaged resumption record is a read error that names the column, never the secret`() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DeviceStore(directory: path)
        var record = Self.record
        record.resumptions = Self.resumptions(1)
        try store.saveMatterBridge(record, now: Date())
        let damages = [
            ("UPDATE matterResumption SET peerNodeID = x'0102'", "peerNodeID is not 8 bytes"),
            ("UPDATE matterResumption SET peerNodeID = x'0000000000000001', caseAuthenticatedTags = x'01'", "CATs"),
            ("UPDATE matterResumption SET caseAuthenticatedTags = x'', fabricIndex = 300", "fabricIndex is 300"),
        ]
        for (sql, expected) in damages {
            let queue = try DatabaseQueue(path: store.path)
            try queue.write { try $0.execute(sql: sql) }
            try queue.close()
            #expect {
                _ = try store.matterBridge()
            } throws: { error in
                "\(error)".contains(expected) && !"\(error)".contains("0001020304")
            }
        }
    }
}
