import Foundation
import Testing
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeTesting

@testable import TraitBridgeHomeKit

/// The accessory database from the shipped table: services per device type, values converted with
/// the table's transforms, per-trait connectivity, stable ids, HAP's accessory limit, scenes.
@Suite("HomeKit accessory database")
struct HAPDatabaseTests {
    static let repository = TestPaths(filePath: #filePath).repository
    static let catalog = try! CatalogLoader.load(mappingsDirectory: repository + "/mappings")
    static let table = try! HomeKitTable.load(mappingsDirectory: repository + "/mappings", catalog: catalog)
    static let online = TraitConnectivity(state: .online, locality: .localPeer)
    static let offline = TraitConnectivity(
        state: .offline, locality: .localPeer,
        reason: .availability(topic: "zigbee2mqtt/x/availability", isOnline: false))

    static func trait(_ id: String, _ values: [String: AttributeValue], _ connectivity: TraitConnectivity = online)
        -> TraitInstance
    {
        TraitInstance(traitID: TraitID(parsing: id)!, attributes: values, connectivity: connectivity)
    }

    static func device(_ id: String, _ type: String, _ traits: [TraitInstance]) -> Device {
        try! Device(
            id: DeviceID(id), name: id,
            deviceTypes: [
                DeviceTypeInstance(
                    key: "main", typeID: DeviceTypeID(parsing: type)!, isPrimaryType: true, traits: traits)
            ])
    }

    static func graph(_ devices: [Device]) -> HomeGraph {
        var graph = try! HomeGraph()
        for device in devices { try! graph.addDevice(device) }
        return graph
    }

    static func database(_ graph: HomeGraph, identity: inout HomeKitIdentity) -> HAPDatabase {
        HAPDatabase(
            graph: graph, table: table, rules: ExportRules(), bridgeName: "Bridge", version: "1.2.3",
            identity: &identity)
    }

    /// The characteristic of HAP type `type` in accessory `aid`.
    static func item(_ database: HAPDatabase, aid: Int, type: String) -> HAPCharacteristic? {
        database.accessories.first { $0.aid == aid }?.services.flatMap(\.characteristics).first { $0.type == type }
    }

    static var light: Device {
        device(
            "light-1", "matter.DimmableLight",
            [
                trait("matter.OnOff", ["onOff": .bool(true)]),
                trait("matter.LevelControl", ["currentLevel": .int(127)], offline),
            ])
    }

    @Test("a trait offline answers -70402 and its service's StatusFault is 1; the rest of the accessory reads")
    func partiallyOnline() throws {
        var identity = HomeKitIdentity.make { Array(0..<64) }
        let graph = Self.graph([Self.light])
        let database = Self.database(graph, identity: &identity)
        let aid = try #require(database.accessoryOfDevice[try DeviceID("light-1")])
        let on = try #require(Self.item(database, aid: aid, type: "25"))
        #expect(try HAPValues.read(on, in: graph).get() == .bool(true))
        let brightness = try #require(Self.item(database, aid: aid, type: "8"))
        #expect(throws: HAPStatus.communicationFailure) { try HAPValues.read(brightness, in: graph).get() }
        #expect(try HAPValues.read(#require(Self.item(database, aid: aid, type: "77")), in: graph).get() == .int(1))
        // The light's service: Lightbulb, with no Hue (the device has no ColorControl).
        #expect(database.accessories.first { $0.aid == aid }?.services.map(\.type) == ["3E", "43"])
        #expect(Self.item(database, aid: aid, type: "13") == nil)
    }

    @Test("values convert both ways with the table: brightness, lock states, blinds' position")
    func conversions() throws {
        var identity = HomeKitIdentity.make { Array(0..<64) }
        let graph = Self.graph([
            Self.device("lock-1", "matter.DoorLock", [Self.trait("matter.DoorLock", ["lockState": .int(2)])]),
            Self.device(
                "blinds-1", "matter.WindowCovering",
                [
                    Self.trait("matter.WindowCovering", ["currentPositionLiftPercent100ths": .int(7000)])
                ]),
            Self.device(
                "light-2", "matter.DimmableLight",
                [
                    Self.trait("matter.OnOff", ["onOff": .bool(false)]),
                    Self.trait("matter.LevelControl", ["currentLevel": .int(254)]),
                ]),
        ])
        let database = Self.database(graph, identity: &identity)
        func aid(_ id: String) -> Int { database.accessoryOfDevice[try! DeviceID(id)] ?? 0 }
        func read(_ id: String, _ type: String) -> JSONValue? {
            Self.item(database, aid: aid(id), type: type).flatMap { try? HAPValues.read($0, in: graph).get() }
        }
        #expect(read("lock-1", "1D") == .int(0), "unlocked reads unsecured")
        #expect(read("lock-1", "1E") == .int(0))
        #expect(read("blinds-1", "6D") == .int(30), "7000 (70 % closed) reads 30 % open")
        #expect(read("light-2", "8") == .int(100))
        func written(_ id: String, _ type: String, _ json: String) -> AttributeValue? {
            guard let item = Self.item(database, aid: aid(id), type: type),
                case .attribute(_, _, let row) = item.source, let value = try? JSONDocument.parse(json).root
            else { return nil }
            let metadata = row.trait.flatMap { Self.catalog.trait($0)?.attribute(named: row.attribute ?? "")?.metadata }
            return HAPValues.modelValue(value, item: item, row: row, metadata: metadata)
        }
        #expect(written("lock-1", "1E", "1") == .int(1), "secured → lockState 1")
        #expect(written("lock-1", "1E", "0") == .int(2))
        #expect(written("blinds-1", "7C", "30") == .int(7000))
        #expect(written("light-2", "8", "50") == .int(127))
        #expect(written("light-2", "25", "1") == .bool(true), "On takes 0/1 as well as booleans")
        #expect(written("light-2", "8", "101") == nil, "over maxValue")
        #expect(written("light-2", "8", "50.5") == nil, "an int format takes whole numbers")
        #expect(written("light-2", "25", "\"on\"") == nil)
    }

    @Test("aids and iids stay the same across rebuilds, renames and new devices; a removed aid is not reused")
    func stableIDs() throws {
        var identity = HomeKitIdentity.make { Array(0..<64) }
        let first = Self.database(Self.graph([Self.light]), identity: &identity)
        var renamed = Self.light
        renamed.name = "Hall light"
        let other = Self.device("a-lamp", "matter.OnOffLight", [Self.trait("matter.OnOff", ["onOff": .bool(false)])])
        let second = Self.database(Self.graph([other, renamed]), identity: &identity)
        let id = try DeviceID("light-1")
        #expect(first.accessoryOfDevice[id] == second.accessoryOfDevice[id])
        let firstIIDs = first.accessories.first { $0.aid == first.accessoryOfDevice[id] }?.services
            .flatMap(\.characteristics).map(\.iid)
        let secondIIDs = second.accessories.first { $0.aid == second.accessoryOfDevice[id] }?.services
            .flatMap(\.characteristics).map(\.iid)
        #expect(firstIIDs == secondIIDs)
        let lamp = try #require(second.accessoryOfDevice[try DeviceID("a-lamp")])
        #expect(first.accessories.allSatisfy { $0.aid < lamp }, "a new device gets a new aid")
        let third = Self.database(Self.graph([other]), identity: &identity)
        let fourth = Self.database(
            Self.graph([
                other,
                Self.device(
                    "b-lamp", "matter.OnOffLight",
                    [Self.trait("matter.OnOff", [:])]),
            ]), identity: &identity)
        #expect(third.accessoryOfDevice.count == 1)
        #expect(fourth.accessoryOfDevice[try DeviceID("b-lamp")] ?? 0 > lamp, "light-1's aid is not given again")
        #expect(first.structureDigest != third.structureDigest && second.structureDigest != first.structureDigest)
    }

    @Test("at most 149 bridged accessories (HAP's limit); the rest are counted")
    func accessoryLimit() {
        var identity = HomeKitIdentity.make { Array(0..<64) }
        let devices = (0..<200).map {
            Self.device("plug-\($0)", "matter.OnOffPlugInUnit", [Self.trait("matter.OnOff", ["onOff": .bool(true)])])
        }
        let graph = Self.graph(devices)
        let database = Self.database(graph, identity: &identity)
        let scenes = graph.homes.flatMap(\.scenes).count
        #expect(database.accessories.count == 150 && database.accessoryOfDevice.count == 149)
        #expect(database.leftOut == 51 + scenes)
    }

    @Test("a scene is a switch; the bridge accessory has the protocol version")
    func scenes() throws {
        var identity = HomeKitIdentity.make { Array(0..<64) }
        var graph = Self.graph([Self.light])
        let action = SceneAction(
            device: try DeviceID("light-1"), trait: TraitID(parsing: "matter.OnOff")!,
            operation: .write(attribute: "onOff", value: .bool(false)))
        _ = try graph.addScene(named: "Movie time", to: graph.primaryHome.id, actions: [action])
        let database = Self.database(graph, identity: &identity)
        let scene = try #require(database.accessories.last)
        #expect(scene.services.map(\.type) == ["3E", "49"])
        guard case .scene(_, let name) = scene.services[1].characteristics[0].source else {
            Issue.record("the switch runs the scene")
            return
        }
        #expect(name == "Movie time")
        #expect(
            try HAPValues.read(#require(Self.item(database, aid: 1, type: "37")), in: graph).get() == .string("1.1.0"))
    }

    @Test("a table row with an unknown trait, format or permission is refused with its JSON path")
    func tableProblems() {
        let bad = #"""
            {"services": [{"service": "Lightbulb", "type": "43", "deviceTypes": ["matter.OnOffLight"],
              "characteristics": [
                {"characteristic": "On", "type": "25", "format": "boolean", "perms": ["pr"], "trait": "matter.OnOff",
                 "attribute": "onOff"},
                {"characteristic": "X", "type": "zz", "format": "bool", "perms": ["pr"], "value": 1},
                {"characteristic": "Y", "type": "24", "format": "bool", "perms": ["px"], "trait": "matter.Nope",
                 "attribute": "x"},
                {"characteristic": "C", "type": "26", "format": "bool", "perms": ["pr", "pw"], "value": true}]}]}
            """#
        do {
            _ = try HomeKitTable.decode(file: "homekit/accessories.json", bytes: Array(bad.utf8), catalog: Self.catalog)
            Issue.record("refused")
        } catch {
            let text = error.problems.map(\.description).joined(separator: "\n")
            #expect(text.contains("services[0].characteristics[0].format"), "\(text)")
            #expect(text.contains("unknown trait 'matter.Nope'"), "\(text)")
            #expect(text.contains("'zz' is not a HAP type"), "\(text)")
            #expect(text.contains("unknown permission 'px'"), "\(text)")
            #expect(text.contains("a constant cannot be written"), "\(text)")
        }
    }
}
