import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// Gives accessory and instance ids once and keeps them: a device keeps its aid across restarts
/// and renames, a characteristic its iid, because controllers key automations and rooms by them.
struct IDAllocator {
    private(set) var identity: HomeKitIdentity

    init(identity: HomeKitIdentity) { self.identity = identity }

    /// Known keys sort by their aid; new ones after, by name (stable order for new ids).
    func order(of key: String) -> (Int, String) { (identity.accessoryIDs[key] ?? Int.max, key) }

    mutating func accessory(_ key: String) -> Int {
        if let aid = identity.accessoryIDs[key] { return aid }
        let next = max(2, (identity.accessoryIDs.values.max() ?? 1) + 1)
        identity.accessoryIDs[key] = next
        return next
    }

    /// iid 1 is the Accessory Information service and 2…7 its characteristics; the rest from 8.
    mutating func instance(_ aid: Int, _ key: String) -> Int {
        let full = "\(aid)/\(key)"
        if let iid = identity.instanceIDs[full] { return iid }
        let counter = "\(aid)/#next"
        let next = max(8, identity.instanceIDs[counter] ?? 8)
        identity.instanceIDs[full] = next
        identity.instanceIDs[counter] = next + 1
        return next
    }
}

/// A service planned for a device type, before it has ids.
struct PlannedService {
    var typeKey: String
    var device: DeviceID
    var row: HomeKitTable.Service
    var characteristics: [HomeKitTable.Characteristic]
    var name: String
    var isPrimary: Bool

    func assigningIDs(aid: Int, ids: inout IDAllocator) -> HAPService {
        let base = "\(typeKey)/\(row.type)"
        var items = characteristics.map { item in
            HAPCharacteristic(
                iid: ids.instance(aid, base + "/" + item.type), type: item.type, format: item.format,
                permissions: item.permissions, unit: item.unit, minValue: item.minValue, maxValue: item.maxValue,
                minStep: item.minStep,
                source: item.constant.map { .constant($0.jsonValue) }
                    ?? .attribute(device: device, typeKey: typeKey, row: item))
        }
        items.append(
            HAPCharacteristic(
                iid: ids.instance(aid, base + "/23"), type: "23", format: "string", permissions: ["pr"],
                source: .constant(.string(name))))
        let traits = Array(Set(characteristics.compactMap(\.trait))).sorted { $0.description < $1.description }
        items.append(
            HAPCharacteristic(
                iid: ids.instance(aid, base + "/77"), type: "77", format: "uint8", permissions: ["pr", "ev"],
                minValue: 0, maxValue: 1, minStep: 1,
                source: .statusFault(device: device, typeKey: typeKey, traits: traits)))
        return HAPService(iid: ids.instance(aid, base), type: row.type, isPrimary: isPrimary, characteristics: items)
    }
}

extension HAPDatabase {
    /// The services `device` is offered as: for each device type, each table row that applies.
    static func services(of device: Device, table: HomeKitTable) -> [PlannedService] {
        var planned: [PlannedService] = []
        let several = device.deviceTypes.count > 1
        for instance in device.deviceTypes {
            let traits = Set(instance.traits.map(\.traitID))
            for row in table.services
            where row.deviceTypes.contains(instance.typeID) || !row.traits.isDisjoint(with: traits) {
                let offered = row.characteristics.filter { $0.trait.map(traits.contains) ?? true }
                let required = row.characteristics.filter(\.isRequired)
                guard required.allSatisfy({ item in offered.contains(item) }), !offered.isEmpty,
                    offered.contains(where: { $0.trait != nil })
                else { continue }
                planned.append(
                    PlannedService(
                        typeKey: instance.key, device: device.id, row: row, characteristics: offered,
                        name: several ? "\(device.name) \(instance.key)" : device.name,
                        isPrimary: planned.isEmpty && instance.isPrimaryType))
            }
        }
        return planned
    }

    static func bridgeAccessory(name: String, version: String, serial: String) -> HAPAccessory {
        var information = information(
            name: name, manufacturer: "TraitBridge", model: "TraitBridge", serial: serial, firmware: version)
        information.isPrimary = true
        let protocolInformation = HAPService(
            iid: 8, type: "A2", isPrimary: false,
            characteristics: [
                HAPCharacteristic(
                    iid: 9, type: "37", format: "string", permissions: ["pr"],
                    source: .constant(.string("1.1.0")))
            ])
        return HAPAccessory(aid: 1, device: nil, services: [information, protocolInformation])
    }

    /// The Accessory Information service (iid 1, characteristics 2…7).
    static func information(
        name: String, manufacturer: String?, model: String?, serial: String, firmware: String?
    ) -> HAPService {
        func text(_ iid: Int, _ type: String, _ value: String) -> HAPCharacteristic {
            HAPCharacteristic(
                iid: iid, type: type, format: "string", permissions: ["pr"],
                source: .constant(.string(String(value.prefix(64)))))
        }
        return HAPService(
            iid: 1, type: "3E", isPrimary: false,
            characteristics: [
                HAPCharacteristic(iid: 2, type: "14", format: "bool", permissions: ["pw"], source: .identify),
                text(3, "20", manufacturer ?? "TraitBridge"), text(4, "21", model ?? "Device"), text(5, "23", name),
                text(6, "30", serial), text(7, "52", hapVersion(firmware)),
            ])
    }

    /// HAP wants x[.y[.z]] of numbers; anything else reads as 1.0.0.
    static func hapVersion(_ text: String?) -> String {
        guard let text else { return "1.0.0" }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count),
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isNumber) })
        else { return "1.0.0" }
        return text
    }
}
