/// Why a change to the model was refused. The text names the thing and says what would be accepted.
public enum ModelError: Error, Sendable, Hashable, CustomStringConvertible {
    case duplicateDefinition(String)
    case unknownTrait(TraitID)
    case unknownDeviceType(DeviceTypeID)
    case unknownAttribute(trait: TraitID, attribute: String, known: [String])
    case missingRequiredTraits(type: DeviceTypeID, missing: [TraitID])
    case duplicateTrait(deviceTypeKey: String, trait: TraitID)
    case duplicateDeviceTypeKey(String)
    case multiplePrimaryTypes([String])
    case unknownDeviceTypeKey(key: String, known: [String])
    case traitNotInDeviceType(TraitAddress)
    case ambiguousTrait(TraitID, deviceTypeKeys: [String])
    case invalidAttributeValue(address: TraitAddress, attribute: String, AttributeValidationError)
    case invalidDeviceID(String)
    case duplicateDevice(DeviceID)
    case unknownDevice(DeviceID)
    case unknownHome(HomeID)
    case unknownRoom(RoomID)
    case unknownZone(ZoneID)
    case invalidName(NameError)
    case cannotRemoveDefaultRoom(RoomID)
    case cannotRemoveLastHome
    case unknownGroup(GroupID)
    case unknownScene(SceneID)
    case cannotRemoveBuiltInScene(name: String, kind: SceneKind)
    case notInHome(device: DeviceID, home: String)
    case invalidLayout(String)
    case invalidLocation(String)

    public var description: String {
        switch self {
        case .duplicateDefinition(let id):
            "'\(id)' is defined twice; keep one definition"
        case .unknownTrait(let id):
            "unknown trait '\(id)'; define it in mappings/catalog or use a trait the catalog has"
        case .unknownDeviceType(let id):
            "unknown device type '\(id)'; define it in mappings/catalog/device-types.json"
        case .unknownAttribute(let trait, let attribute, let known):
            "trait \(trait) has no attribute '\(attribute)'\(Suggestions.didYouMean(attribute, among: known)); "
                + "it has: \(known.joined(separator: ", "))"
        case .missingRequiredTraits(let type, let missing):
            "device type \(type) requires trait(s) \(missing.map(\.description).joined(separator: ", ")), which are missing"
        case .duplicateTrait(let key, let trait):
            "device type '\(key)' holds trait \(trait) twice; a trait appears once per device type"
        case .duplicateDeviceTypeKey(let key):
            "two device types share the key '\(key)'; give each a distinct key (e.g. 'l1', 'l2')"
        case .multiplePrimaryTypes(let keys):
            "device types \(keys.joined(separator: ", ")) are all marked primary; mark exactly one"
        case .unknownDeviceTypeKey(let key, let known):
            "the device has no device type '\(key)'\(Suggestions.didYouMean(key, among: known)); "
                + "it has: \(known.joined(separator: ", "))"
        case .traitNotInDeviceType(let address) where address.deviceTypeKey == "*":
            "the device has no trait \(address.traitID) in any of its device types; `traitbridge show <device>` lists its traits"
        case .traitNotInDeviceType(let address):
            "device type '\(address.deviceTypeKey)' has no trait \(address.traitID)"
        case .ambiguousTrait(let trait, let keys):
            "trait \(trait) is in several device types (\(keys.joined(separator: ", "))); name the device type"
        case .invalidAttributeValue(let address, let attribute, let error):
            "\(address).\(attribute): \(error)"
        case .invalidDeviceID(let id):
            "device id '\(id)' is not usable in MQTT topics; use 1–128 of A–Z a–z 0–9 . _ - (not starting with '.')"
        case .duplicateDevice(let id):
            "a device with id '\(id)' already exists"
        case .unknownDevice(let id):
            "no device with id '\(id)'"
        case .unknownHome(let id):
            "no home with id '\(id)'"
        case .unknownRoom(let id):
            "no room with id '\(id)'"
        case .unknownZone(let id):
            "no zone with id '\(id)'"
        case .invalidName(let error):
            error.description
        case .cannotRemoveDefaultRoom(let id):
            "room '\(id)' is the home's default room and cannot be removed"
        case .cannotRemoveLastHome:
            "the last home cannot be removed; add another home first"
        case .unknownGroup(let id):
            "no group with id '\(id)'"
        case .unknownScene(let id):
            "no scene with id '\(id)'"
        case .cannotRemoveBuiltInScene(let name, let kind):
            "'\(name)' is the home's built-in \(kind) scene and cannot be removed; rename it or change its actions"
        case .notInHome(let device, let home):
            "device '\(device)' is not in the home '\(home)'; move it there first (traitbridge move --home)"
        case .invalidLocation(let reason):
            "the home's location is not usable: \(reason)"
        case .invalidLayout(let reason):
            "the kept home layout is not usable: \(reason)"
        }
    }
}
