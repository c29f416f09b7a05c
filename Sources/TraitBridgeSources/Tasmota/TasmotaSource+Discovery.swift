public import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

extension TasmotaSource {
    /// A device from its discovery config (`tasmota/discovery/<mac>/config`): relays (`rl` 1),
    /// the light (`rl` 2, by `lt_st`), its topics and LWT words. Shutters (`rl` 3) are reported
    /// and left out. The error names the key and what is allowed.
    public func device(fromConfig config: JSON) -> Result<TasmotaDevice, SourceProblem> {
        func fail(_ key: String, _ message: String) -> Result<TasmotaDevice, SourceProblem> {
            .failure(SourceProblem(location: key, message: message))
        }
        guard config.kind == .object else { return fail("$", "a discovery config is a JSON object, found \(config.kind)") }
        guard let mac = config["mac"]?.string, mac.count == 12, mac.allSatisfy(\.isHexDigit) else {
            return fail("mac", "expected the 12 hex digits of the MAC address")
        }
        guard let topic = config["t"]?.string, !topic.isEmpty else { return fail("t", "expected the device topic (%topic%)") }
        guard let fullTopic = config["ft"]?.string, fullTopic.contains("%topic%") || fullTopic.contains(topic) else {
            return fail("ft", "expected the FullTopic, e.g. \"%prefix%/%topic%/\"")
        }
        guard let prefixes = config["tp"]?.elements.compactMap(\.string), prefixes.count == 3 else {
            return fail("tp", "expected the three prefixes [\"cmnd\", \"stat\", \"tele\"]")
        }
        let relays = config["rl"]?.elements.map { $0.int64 ?? 0 } ?? []
        let names = config["fn"]?.elements.map(\.string) ?? []
        let subtype = Int(config["lt_st"]?.int64 ?? 0)
        let powerDevices = relays.filter { $0 == 1 || $0 == 2 }.count
        var types: [DeviceTypeInstance] = []
        var powerKeys: [Int: String] = [:]
        var light: (key: String, subtype: Int)?
        var problems: [SourceProblem] = []
        for (index, kind) in relays.enumerated() where kind != 0 {
            let number = index + 1
            switch kind {
            case 1:
                let key = powerDevices > 1 ? "relay\(number)" : "relay"
                if let instance = try? catalog.makeDeviceType(key: key, type: table.relayType, isPrimaryType: types.isEmpty, traits: traits(table.relayType, [.matter("OnOff")])) {
                    types.append(instance)
                    powerKeys[number] = key
                }
            case 2 where light == nil:
                let type = table.lightTypes[subtype] ?? .matter("OnOffLight")
                var lightTraits: [TraitID] = [.matter("OnOff")]
                for value in table.light where value.minimumSubtype <= subtype && !lightTraits.contains(value.trait) { lightTraits.append(value.trait) }
                if subtype >= 3 && !lightTraits.contains(.matter("ColorControl")) { lightTraits.append(.matter("ColorControl")) }
                if let instance = try? catalog.makeDeviceType(key: "light", type: type, isPrimaryType: types.isEmpty, traits: traits(type, lightTraits)) {
                    types.append(instance)
                    powerKeys[number] = "light"
                    light = ("light", subtype)
                }
            case 3:
                problems.append(SourceProblem(location: "rl[\(index)]", message: "relay \(number) drives a shutter: not supported yet, left out"))
            default:
                problems.append(SourceProblem(location: "rl[\(index)]", message: "relay type \(kind) is not known (0 none, 1 relay, 2 light, 3 shutter), left out"))
            }
        }
        let name = config["dn"]?.string ?? names.first.flatMap { $0 } ?? topic
        let source = SourceReference(family: Self.family, instance: instance, nativeID: mac)
        for index in types.indices {
            for trait in types[index].traits.indices { types[index].traits[trait].source = source }
        }
        do {
            let device = try Device(
                id: DeviceID.derived(source: Self.family, nativeID: mac), name: name,
                identity: DeviceIdentity(uniqueID: mac, otherDeviceIDs: [OtherDeviceID(agentID: Self.family, deviceID: mac)]),
                info: DeviceInfo(manufacturer: "Tasmota", model: config["md"]?.string, softwareVersion: config["sw"]?.string),
                sources: [source], deviceTypes: types)
            return .success(TasmotaDevice(
                mac: mac, topic: topic, fullTopic: fullTopic, prefixes: prefixes,
                onlinePayload: config["onln"]?.string ?? "Online", offlinePayload: config["ofln"]?.string ?? "Offline",
                device: device, powerKeys: powerKeys, light: light, sensors: [:], energyKey: powerKeys.sorted { $0.key < $1.key }.first { $0.value != "light" }?.value,
                problems: problems))
        } catch {
            return fail("$", "\(error)")
        }
    }

    /// The required traits of `type` (Identify…) followed by `own`.
    func traits(_ type: DeviceTypeID, _ own: [TraitID]) -> [TraitID] {
        let required = catalog.deviceType(type)?.requiredTraits ?? []
        return required.filter { !own.contains($0) } + own
    }

    /// The measurements of `tasmota/discovery/<mac>/sensors` (`{"sn": {"AM2301": {"Temperature":
    /// 21.5, …}, "ENERGY": {…}}}`): each known measurement becomes a device type on the device.
    public func addSensors(_ payload: JSON, to tasmota: inout TasmotaDevice) -> [SourceProblem] {
        guard let sensors = payload["sn"], sensors.kind == .object else {
            return [SourceProblem(location: "sn", message: "expected the sensor sample {\"sn\": {…}}")]
        }
        var problems: [SourceProblem] = []
        let source = SourceReference(family: Self.family, instance: instance, nativeID: tasmota.mac)
        for (name, object) in sensors.members where object.kind == .object {
            if name == "ENERGY" {
                guard let key = tasmota.energyKey else {
                    problems.append(SourceProblem(location: "sn.ENERGY", message: "energy values without a relay to put them on: left out"))
                    continue
                }
                let traits = Set(table.energy.filter { object[$0.key] != nil }.map(\.trait))
                for trait in traits.sorted() {
                    if tasmota.device.trait(at: TraitAddress(deviceTypeKey: key, traitID: trait)) == nil {
                        tasmota.device.addTrait(TraitInstance(traitID: trait, source: source), toDeviceType: key)
                    }
                }
                continue
            }
            for value in table.sensors where object[value.key] != nil {
                guard let type = value.deviceType else { continue }
                let key = "\(name.lowercased())-\(value.key.lowercased())"
                if tasmota.device.deviceType(key: key) == nil {
                    guard var instance = try? catalog.makeDeviceType(key: key, type: type, isPrimaryType: tasmota.device.deviceTypes.isEmpty, traits: traits(type, [value.trait])) else { continue }
                    for index in instance.traits.indices { instance.traits[index].source = source }
                    try? tasmota.device.addDeviceType(instance)
                }
                if !(tasmota.sensors[name]?.contains { $0.key == key } ?? false) { tasmota.sensors[name, default: []].append((value, key)) }
            }
        }
        return problems
    }
}
