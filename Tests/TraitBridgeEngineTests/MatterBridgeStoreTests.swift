import Foundation
import GRDB
import Testing
import TraitBridgeStore

/// The Matter bridge's state in the registry: written and read back whole (ids above Int64's range
/// included), replaced in one piece, and a value of the wrong kind on disk an error, never a trap.
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
}
