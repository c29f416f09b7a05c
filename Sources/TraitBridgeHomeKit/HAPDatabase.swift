import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// Where one offered characteristic's value comes from.
enum HAPValueSource: Sendable {
    /// A trait's attribute, converted by the table's row.
    case attribute(device: DeviceID, typeKey: String, row: HomeKitTable.Characteristic)
    case constant(JSONValue)
    /// 1 when one of the service's traits is offline.
    case statusFault(device: DeviceID, typeKey: String, traits: [TraitID])
    /// Identify: write-only; the bridge has nothing to blink, so it only logs.
    case identify
    /// A scene as a switch: writing true runs it; it reads false.
    case scene(SceneID, name: String)
}

/// One characteristic as offered: its ids, HAP metadata and value source.
struct HAPCharacteristic: Sendable {
    var iid: Int
    var type: String
    var format: String
    var permissions: [String]
    var unit: String?
    var minValue: Double?
    var maxValue: Double?
    var minStep: Double?
    var source: HAPValueSource
}

struct HAPService: Sendable {
    var iid: Int
    var type: String
    var isPrimary: Bool
    var characteristics: [HAPCharacteristic]
}

struct HAPAccessory: Sendable {
    var aid: Int
    var device: DeviceID?
    var services: [HAPService]
}

/// The accessories a bridge offers, built from the unified model and the table, with ids kept in
/// the identity (stable across restarts and renames). Bounded: at most `accessoryLimit` bridged
/// accessories (HAP's limit); the rest are counted in `leftOut`.
struct HAPDatabase: Sendable {
    static let accessoryLimit = 149
    private(set) var accessories: [HAPAccessory] = []
    private(set) var byID: [CharacteristicKey: HAPCharacteristic] = [:]
    private(set) var leftOut = 0
    /// Devices → their accessory, for events.
    private(set) var accessoryOfDevice: [DeviceID: Int] = [:]
    /// The keys of the bridged accessories, in order: device ids, then "scene:" and scene ids.
    private(set) var keys: [String] = []

    struct CharacteristicKey: Sendable, Hashable {
        var aid: Int
        var iid: Int
    }

    func characteristic(aid: Int, iid: Int) -> HAPCharacteristic? { byID[CharacteristicKey(aid: aid, iid: iid)] }

    /// The structure's digest (types and ids, not values): a change bumps the configuration number.
    var structureDigest: String {
        var text = ""
        for accessory in accessories {
            text += "a\(accessory.aid);"
            for service in accessory.services {
                text += "s\(service.iid):\(service.type);"
                for item in service.characteristics { text += "c\(item.iid):\(item.type):\(item.permissions);" }
            }
        }
        return String(UInt(bitPattern: ByteHash.hash(Array(text.utf8))), radix: 16)
    }

    /// The keys of what the rules let through and the table can offer: each device's id (sorted), then
    /// "scene:" and each scene's id. What `BridgeAssignment` splits over the bridges.
    static func offeredKeys(graph: HomeGraph, table: HomeKitTable, rules: ExportRules) -> [String] {
        let devices = graph.devices.values.filter { !offered($0, graph: graph, table: table, rules: rules).isEmpty }
        return devices.map(\.id.rawValue).sorted() + graph.homes.flatMap(\.scenes).map { "scene:" + $0.id.rawValue }
    }

    /// The services `device` is offered as, none when the rules leave it out.
    private static func offered(_ device: Device, graph: HomeGraph, table: HomeKitTable, rules: ExportRules)
        -> [PlannedService]
    {
        let types = device.deviceTypes.map(\.typeID.description)
        guard rules.allows(id: device.id.rawValue, room: graph.room(of: device.id)?.name, types: types) else {
            return []
        }
        return services(of: device, table: table)
    }

    /// Builds the database of `state`'s devices and scenes (only the keys in `admitted`, when given:
    /// this bridge's share); assigns new ids in `identity`.
    init(
        graph: HomeGraph, table: HomeKitTable, rules: ExportRules, bridgeName: String, version: String,
        admitted: Set<String>? = nil, identity: inout HomeKitIdentity
    ) {
        var ids = IDAllocator(identity: identity)
        accessories.append(Self.bridgeAccessory(name: bridgeName, version: version, serial: identity.pairingID))
        let devices = graph.devices.values.sorted { ids.order(of: $0.id.rawValue) < ids.order(of: $1.id.rawValue) }
        for device in devices where admitted?.contains(device.id.rawValue) ?? true {
            let services = Self.offered(device, graph: graph, table: table, rules: rules)
            guard !services.isEmpty else { continue }
            guard accessories.count <= Self.accessoryLimit else {
                leftOut += 1
                continue
            }
            let aid = ids.accessory(device.id.rawValue)
            var accessory = HAPAccessory(aid: aid, device: device.id, services: [])
            accessory.services.append(
                Self.information(
                    name: device.name, manufacturer: device.info.manufacturer ?? device.sources.first?.family,
                    model: device.info.model ?? device.primaryType?.typeID.description, serial: device.id.rawValue,
                    firmware: device.info.softwareVersion))
            for planned in services {
                accessory.services.append(planned.assigningIDs(aid: aid, ids: &ids))
            }
            accessories.append(accessory)
            accessoryOfDevice[device.id] = aid
            keys.append(device.id.rawValue)
        }
        for scene in graph.homes.flatMap(\.scenes) where admitted?.contains("scene:" + scene.id.rawValue) ?? true {
            guard accessories.count <= Self.accessoryLimit else {
                leftOut += 1
                continue
            }
            let aid = ids.accessory("scene:" + scene.id.rawValue)
            keys.append("scene:" + scene.id.rawValue)
            let on = HAPCharacteristic(
                iid: ids.instance(aid, "scene/49/25"), type: "25", format: "bool", permissions: ["pr", "pw", "ev"],
                source: .scene(scene.id, name: scene.name))
            accessories.append(
                HAPAccessory(
                    aid: aid, device: nil,
                    services: [
                        Self.information(
                            name: scene.name, manufacturer: "TraitBridge", model: "Scene",
                            serial: scene.id.rawValue, firmware: nil),
                        HAPService(
                            iid: ids.instance(aid, "scene/49"), type: "49", isPrimary: true,
                            characteristics: [on]),
                    ]))
        }
        identity = ids.identity
        for accessory in accessories {
            for service in accessory.services {
                for item in service.characteristics {
                    byID[CharacteristicKey(aid: accessory.aid, iid: item.iid)] = item
                }
            }
        }
    }
}
