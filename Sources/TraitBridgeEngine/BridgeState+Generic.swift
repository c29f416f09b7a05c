import Foundation
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// A generic device at run time: its definition, the device it shows up in, its key renames.
struct GenericRuntime: Sendable {
    var definition: GenericDeviceDefinition
    var source: SourceReference
    /// The device its traits belong to: its own, or the `mergeWith` target.
    var target: DeviceID
    var liveness: DeviceLiveness
    /// Device type key in the definition → key on the target device (renamed on a collision).
    var keys: [String: String] = [:]

    func address(_ binding: GenericDeviceDefinition.Binding) -> TraitAddress {
        TraitAddress(deviceTypeKey: keys[binding.address.deviceTypeKey] ?? binding.address.deviceTypeKey, traitID: binding.address.traitID)
    }
}

extension BridgeState {
    static let genericFamily = "generic"

    /// Registers the generic devices: standalone ones join the graph now, merged ones join their
    /// target when it appears.
    mutating func registerGeneric(_ definitions: [GenericDeviceDefinition]) {
        for definition in definitions {
            let source = SourceReference(family: Self.genericFamily, instance: "default", nativeID: definition.nativeID)
            let target = definition.mergeTarget ?? DeviceID.derived(source: Self.genericFamily, nativeID: definition.nativeID)
            let index = generic.count
            generic.append(GenericRuntime(definition: definition, source: source, target: target,
                                          liveness: DeviceLiveness(stalenessBudget: definition.staleness)))
            for binding in definition.bindings { genericTopics[binding.stateTopic, default: []].append(index) }
            if let availability = definition.availability { genericAvailabilityTopics[availability.topic, default: []].append(index) }
            if definition.mergeTarget == nil, let device = try? Device(id: target, name: definition.name, identity: definition.identity, sources: []) {
                var device = device
                attachGeneric(to: &device)
                try? graph.addDevice(device)
            }
        }
    }

    /// Generic devices whose identity names the same physical device as `device` (same unique id,
    /// serial, or an id listed in `otherDeviceIds`) join it: the standalone device they had is
    /// removed (its retained topics cleared) and their traits move, with their values.
    mutating func mergeByIdentity(into device: Device, effects: inout BridgeEffects) {
        for index in generic.indices where generic[index].definition.mergeTarget == nil && generic[index].target != device.id {
            let definition = generic[index].definition
            guard definition.identity.matches(device.identity) else { continue }
            let old = generic[index].target
            let oldValues = graph.devices[old]
            generic[index].target = device.id
            if graph.devices[old] != nil {
                removeFromGraph(old, effects: &effects)
            }
            effects.log(.info, "merged \(definition.name) into \(device.name): same identity", ["tb.device.id": device.id.rawValue])
            if let oldValues { mergedValues[device.id, default: []].append(oldValues) }
        }
    }

    /// Replays kept messages of the generic devices merged into `id`, once it exists.
    mutating func replayPendingGeneric(for id: DeviceID, now: Date, effects: inout BridgeEffects) {
        for runtime in generic where runtime.target == id {
            for topic in Set(runtime.definition.bindings.map(\.stateTopic)) {
                guard let payload = takePending(topic), let indices = genericTopics[topic] else { continue }
                handleGenericState(indices, topic: topic, payload: payload, now: now, effects: &effects)
            }
        }
    }

    /// Adds the device types of every generic device that targets `device`, each trait with its source.
    mutating func attachGeneric(to device: inout Device) {
        for index in generic.indices where generic[index].target == device.id {
            let runtime = generic[index]
            if !device.sources.contains(runtime.source) { device.sources.append(runtime.source) }
            for var type in runtime.definition.deviceTypes {
                let original = type.key
                var key = original
                while device.deviceType(key: key) != nil { key = "generic_" + key }
                type.key = key
                if device.primaryType != nil { type.isPrimaryType = false }
                for traitIndex in type.traits.indices { type.traits[traitIndex].source = runtime.source }
                generic[index].keys[original] = key
                // Values the traits had on their standalone device (merge by identity) come along.
                for var standalone in mergedValues[device.id] ?? [] where standalone.deviceType(key: original) != nil {
                    for traitIndex in type.traits.indices {
                        let address = TraitAddress(deviceTypeKey: original, traitID: type.traits[traitIndex].traitID)
                        if let old = standalone.trait(at: address) { type.traits[traitIndex].attributes = old.attributes }
                    }
                    standalone.removeDeviceType(key: original)
                }
                try? device.addDeviceType(type)
            }
        }
    }

    /// A message on a generic device's state topic.
    mutating func handleGenericState(_ indices: [Int], topic: String, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        for index in indices {
            let runtime = generic[index]
            var updates: [AttributeUpdate] = []
            for binding in runtime.definition.bindings where binding.stateTopic == topic {
                guard let raw = Self.value(in: payload, at: binding.jsonPath) else {
                    effects.log(.warning, "rejected message: no value at \(binding.jsonPath?.description ?? "the payload")", ["tb.mqtt.topic": topic, "tb.device.id": runtime.target.rawValue])
                    continue
                }
                guard let value = binding.pipeline.forward(raw, fittingTo: binding.metadata) else {
                    effects.log(.warning, "ignored a value: cannot convert \(raw) to \(binding.address.traitID).\(binding.attribute)", ["tb.mqtt.topic": topic, "tb.device.id": runtime.target.rawValue])
                    continue
                }
                updates.append(AttributeUpdate(address: runtime.address(binding), attribute: binding.attribute, value: value))
            }
            guard graph.devices[runtime.target] != nil else {
                keepPending(topic: topic, payload: payload, effects: &effects)  // its merge target is not known yet
                continue
            }
            var changed = false
            let catalog = catalog
            _ = try? graph.modifyDevice(runtime.target) { device in
                for update in updates {
                    do {
                        if try device.report(update.value, attribute: update.attribute, at: update.address, catalog: catalog, time: now) { changed = true }
                    } catch {
                        effects.log(.warning, "rejected a value: \(error)", ["tb.mqtt.topic": topic, "tb.device.id": runtime.target.rawValue])
                    }
                }
            }
            if changed { lastUpdate[runtime.target] = now }
            // Only a message that carried a value is news of the device (a malformed one changes nothing).
            if !updates.isEmpty {
                generic[index].liveness.lastSeen = now
                generic[index].liveness.lastTopic = topic
            }
            confirmCommands(for: runtime.target, now: now, effects: &effects)
            refresh(runtime.target, now: now, effects: &effects, valuesChanged: changed)
        }
    }

    /// A message on a generic device's availability topic.
    mutating func handleGenericAvailability(_ indices: [Int], topic: String, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        let text = String(decoding: payload, as: UTF8.self)
        for index in indices {
            guard let availability = generic[index].definition.availability else { continue }
            let status: LinkState.Status
            switch text {
            case availability.online: status = .up
            case availability.offline: status = .down
            case "": continue
            default:
                effects.log(.warning, "ignored availability: expected '\(availability.online)' or '\(availability.offline)'", ["tb.mqtt.topic": topic])
                continue
            }
            guard generic[index].liveness.availability.status != status else { continue }
            generic[index].liveness.availability = LinkState(status: status, since: now, origin: topic)
            refresh(generic[index].target, now: now, effects: &effects)
        }
    }

    /// The trait connectivity of one generic source on its device.
    func genericConnectivity(_ source: SourceReference, now: Date) -> TraitConnectivity? {
        guard let runtime = generic.first(where: { $0.source == source }) else { return nil }
        return ConnectivityChain.resolve(broker: broker, brokerURL: configuration.brokerDescription, sourceBridge: LinkState(),
                                         device: runtime.liveness, locality: runtime.definition.locality, now: now)
    }

    /// The value at `path` in a JSON payload, or the plain payload as a number, boolean or string.
    static func value(in payload: [UInt8], at path: JSONPath?) -> AttributeValue? {
        if let path {
            guard let document = try? JSONDocument.parse(payload), let value = document.root[path: path], !value.isNull else { return nil }
            return AttributeValue(json: value)
        }
        let text = String(decoding: payload, as: UTF8.self)
        if let number = FiniteNumber.parse(text) { return FiniteNumber.attributeValue(number) }
        if text == "true" || text == "false" { return .bool(text == "true") }
        return .string(text)
    }

    /// The command messages for writes to generic traits: one per binding, from its template.
    func genericCommands(_ writes: [AttributeUpdate], on id: DeviceID) throws(CommandFailure) -> [Outgoing] {
        var outgoing: [Outgoing] = []
        for write in writes {
            guard let binding = genericBinding(for: write, on: id), let topic = binding.commandTopic else {
                throw CommandFailure(.notSupported, "\(write.address).\(write.attribute) has no command topic in its generic mapping")
            }
            guard let value = binding.pipeline.inverse(write.value, integral: binding.metadata.format.integerRange != nil) else {
                throw CommandFailure(.invalidValue, "\(write.value) has no source form for \(write.address).\(write.attribute)")
            }
            let text: String
            switch value {
            case .string(let string): text = binding.jsonPath == nil ? string : JSONValue.string(string).serialized()
            default: text = value.jsonValue.serialized()
            }
            let payload = (binding.commandTemplate ?? "{{value}}").replacingAll("{{value}}", with: text)
            outgoing.append(Outgoing(topic: topic, payload: Array(payload.utf8), isRetained: false))
        }
        return outgoing
    }

    func genericBinding(for write: AttributeUpdate, on id: DeviceID) -> GenericDeviceDefinition.Binding? {
        for runtime in generic where runtime.target == id {
            if let binding = runtime.definition.bindings.first(where: { runtime.address($0) == write.address && $0.attribute == write.attribute }) {
                return binding
            }
        }
        return nil
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
