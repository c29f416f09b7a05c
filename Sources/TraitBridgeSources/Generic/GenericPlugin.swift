import FoundationEssentials
import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// Devices from `mappings/generic/` behind the plug-in boundary: known from their files at
/// start, fed by exact topics (a plain payload or a value at a JSON path), with their own
/// availability words, commands from templates. A mapping with `mergeWith` joins that device;
/// one without stands alone until another source has a device with the same identity.
public struct GenericPlugin: SourcePlugin {
    public static let family = "generic"
    public let instance = "default"
    public let definitions: [GenericDeviceDefinition]
    /// Definition indices by the topic they read (state or availability).
    private var readers: [String: [Int]] = [:]

    public init(definitions: [GenericDeviceDefinition]) {
        self.definitions = definitions
        for (index, definition) in definitions.enumerated() {
            let topics = Set(definition.bindings.map(\.stateTopic) + [definition.availability?.topic].compactMap { $0 })
            for topic in topics.sorted() { readers[topic, default: []].append(index) }
        }
    }

    public var family: String { Self.family }
    public var locality: TraitLocality { .localPeer }
    public var staleness: Duration { .seconds(900) }
    public var joinsOtherDevices: Bool { true }
    public var subscriptions: [String] { readers.keys.sorted() }
    public var deviceIDs: [DeviceID] { definitions.map(id) }
    public var deviceCount: Int { definitions.count }

    /// Its topics are routed from the start: nothing is claimed.
    public func claims(_ topic: String) -> Bool { false }

    func id(_ definition: GenericDeviceDefinition) -> DeviceID {
        DeviceID.derived(source: Self.family, nativeID: definition.nativeID)
    }

    func reference(_ definition: GenericDeviceDefinition) -> SourceReference {
        SourceReference(family: Self.family, instance: instance, nativeID: definition.nativeID)
    }

    public mutating func start(into events: inout [SourceEvent]) {
        events.append(.route(readers.keys.sorted()))
        for definition in definitions {
            let reference = reference(definition)
            guard
                var device = try? Device(
                    id: id(definition), name: definition.name, identity: definition.identity, sources: [reference])
            else {
                events.append(
                    .log(
                        .warning,
                        "skipped generic device '\(definition.nativeID)' (\(definition.origin)): not a valid device",
                        device: nil))
                continue
            }
            for var type in definition.deviceTypes {
                for index in type.traits.indices { type.traits[index].source = reference }
                try? device.addDeviceType(type)
            }
            let joining: SourceDevice.Joining = definition.mergeTarget.map { .device($0) } ?? .sameIdentity
            var described = SourceDevice(
                device: device, stalenessBudget: definition.staleness, joining: joining, keyPrefix: "generic_",
                locality: definition.locality)
            described.joinsTypes = definition.joinedTypes
            events.append(.described(described))
        }
    }

    public mutating func receive(_ message: SourceMessage, into events: inout [SourceEvent]) {
        for index in readers[message.topic] ?? [] {
            let definition = definitions[index]
            if let availability = definition.availability, availability.topic == message.topic {
                self.availability(definition, availability, message, into: &events)
            }
            guard definition.bindings.contains(where: { $0.stateTopic == message.topic }) else { continue }
            var updates: [AttributeUpdate] = []
            for binding in definition.bindings where binding.stateTopic == message.topic {
                guard let raw = Self.value(in: message.payload, at: binding.jsonPath) else {
                    events.append(
                        .log(
                            .warning, "rejected message: no value at \(binding.jsonPath?.description ?? "the payload")",
                            device: id(definition)))
                    continue
                }
                guard let value = binding.pipeline.forward(raw, fittingTo: binding.metadata) else {
                    events.append(
                        .log(
                            .warning,
                            "ignored a value: cannot convert \(raw) to \(binding.address.traitID).\(binding.attribute)",
                            device: id(definition)))
                    continue
                }
                updates.append(AttributeUpdate(address: binding.address, attribute: binding.attribute, value: value))
            }
            events.append(.values(id(definition), updates, isNews: false))
        }
    }

    private func availability(
        _ definition: GenericDeviceDefinition, _ availability: GenericDeviceDefinition.Availability,
        _ message: SourceMessage, into events: inout [SourceEvent]
    ) {
        switch String(decoding: message.payload, as: UTF8.self) {
        case availability.online: events.append(.availability(reference(definition), isOnline: true))
        case availability.offline: events.append(.availability(reference(definition), isOnline: false))
        case "": break
        default:
            events.append(
                .log(
                    .warning, "ignored availability: expected '\(availability.online)' or '\(availability.offline)'",
                    device: nil))
        }
    }

    /// The value at `path` in a JSON payload, or the plain payload as a number, boolean or string.
    static func value(in payload: [UInt8], at path: JSONPath?) -> AttributeValue? {
        if let path {
            guard let document = try? JSONDocument.parse(payload), let value = document.root[path: path], !value.isNull
            else { return nil }
            return AttributeValue(json: value)
        }
        let text = String(decoding: payload, as: UTF8.self)
        if let number = FiniteNumber.parse(text) { return FiniteNumber.attributeValue(number) }
        if text == "true" || text == "false" { return .bool(text == "true") }
        return .string(text)
    }

    /// One message per write, from its binding's template on its command topic.
    public mutating func commands(for writes: [AttributeUpdate], on id: DeviceID) throws(SourceCommandError)
        -> [SourceOutgoing]
    {
        guard let definition = definitions.first(where: { self.id($0) == id }) else {
            throw .notSupported("device '\(id)' is not in mappings/generic/")
        }
        var outgoing: [SourceOutgoing] = []
        for write in writes {
            guard
                let binding = definition.bindings.first(where: {
                    $0.address == write.address && $0.attribute == write.attribute
                }),
                let topic = binding.commandTopic
            else {
                throw .notSupported("\(write.address).\(write.attribute) has no command topic in its generic mapping")
            }
            guard
                let value = binding.pipeline.inverse(write.value, integral: binding.metadata.format.integerRange != nil)
            else {
                throw .valueNotRepresentable(
                    "\(write.value) has no source form for \(write.address).\(write.attribute)")
            }
            outgoing.append(SourceOutgoing(topic: topic, payload: Array(binding.commandPayload(value).utf8)))
        }
        return outgoing
    }
}
