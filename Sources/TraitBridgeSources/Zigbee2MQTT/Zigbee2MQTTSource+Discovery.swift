public import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

extension Zigbee2MQTTSource {
    /// What one `bridge/devices` list says: the devices mapped, the entries refused, and what may
    /// be removed. A device is removed only when a list that could be read whole leaves it out or
    /// marks it disabled: a payload of the wrong shape (`{}`, `[1]`, an entry without its address)
    /// removes nothing, and a device whose entry is malformed or maps to nothing is kept as it was.
    public struct Discovery: Sendable {
        public var devices: [Zigbee2MQTTDevice] = []
        public var problems: [SourceProblem] = []
        /// Devices the list names (and does not disable): those mapped, and the others, which are
        /// kept as they were, neither updated nor removed.
        public var kept: Set<DeviceID> = []
        /// Whether every entry had an `ieee_address`, so an omission really means "gone".
        public var canRemove = true
        /// What each distinct `exposes` text of this list maps to: a network has thousands of
        /// devices and a few dozen models, each read and mapped once.
        var mappedExposes: [String: MappedExposes] = [:]
        /// Whether the entries were read through ``Zigbee2MQTTSource/entryProjection``, which keeps
        /// `definition.exposes` as text (a string there is the exposes' text, not a string value).
        let exposesAsText: Bool

        public init(exposesAsText: Bool = false) {
            self.exposesAsText = exposesAsText
        }

        /// Whether a known device must go: the list is whole and neither maps nor keeps it.
        public func removes(_ id: DeviceID) -> Bool {
            canRemove && !kept.contains(id)
        }
    }

    /// Maps the retained `bridge/devices` payload. The coordinator and devices that expose
    /// nothing the table knows are skipped; a malformed entry is a problem of its own and never
    /// drops the others.
    public func discover(_ payload: JSON) -> Discovery {
        var result = Discovery()
        guard payload.kind == .array else {
            result.problems = [
                SourceProblem(
                    location: "bridge/devices", message: "expected an array of devices, found \(payload.kind)")
            ]
            result.canRemove = false
            return result
        }
        for (index, entry) in payload.elements.enumerated() { discover(entry, at: index, into: &result) }
        return result
    }

    /// What ``discover(_:at:into:)`` reads of a `bridge/devices` entry. About two thirds of an entry
    /// is for people or for zigbee2mqtt itself (`endpoints`, `definition.options`, the exposes'
    /// descriptions, labels and presets): checked as JSON, never built (see ``JSONProjection``).
    /// A member added to what `discover` reads must be added here.
    /// The exposes are kept as text (``JSONProjection/text(_:)``): read once per distinct text.
    /// (Built on each use, once per list, rather than kept in a global: a global enum of this shape
    /// keeps its boxes behind tagged pointers, which LeakSanitizer reports as leaked.)
    public static var entryProjection: JSONProjection {
        .members([
            "type": .all, "ieee_address": .all, "disabled": .all, "friendly_name": .all, "manufacturer": .all,
            "model_id": .all, "date_code": .all, "software_build_id": .all, "power_source": .all,
            "definition": .members(["vendor": .all, "model": .all, "exposes": .text(exposesProjection)]),
        ])
    }

    /// What discovery reads of `definition.exposes`.
    static var exposesProjection: JSONProjection { .allExcept(["description", "label", "category", "presets"]) }

    /// Maps one entry of the list (`index` for messages) into `result`: a device, a problem, or
    /// nothing (the coordinator, a disabled device). Used by ``discover(_:)`` and by a caller
    /// that reads the list one element at a time.
    public func discover(_ entry: JSON, at index: Int, into result: inout Discovery) {
        let location = "bridge/devices[\(index)]"
        guard entry.kind == .object else {
            result.problems.append(
                SourceProblem(location: location, message: "expected an object, found \(entry.kind)"))
            result.canRemove = false
            return
        }
        if entry["type"]?.isString("Coordinator") == true { return }
        guard let ieee = entry["ieee_address"]?.string, !ieee.isEmpty else {
            result.problems.append(SourceProblem(location: location, message: "missing ieee_address"))
            result.canRemove = false
            return
        }
        let id = DeviceID.derived(source: "z2m", nativeID: ieee)
        if entry["disabled"]?.bool == true { return }
        result.kept.insert(id)
        guard let name = entry["friendly_name"]?.string, !name.isEmpty else {
            result.problems.append(SourceProblem(location: location, message: "missing friendly_name for \(ieee)"))
            return
        }
        let mapped: MappedExposes
        if let problem = Self.definitionProblem(entry) {
            mapped = .problem(problem)
        } else if result.exposesAsText, let text = entry[path: "definition.exposes"]?.string {
            if let known = result.mappedExposes[text] {
                mapped = known
            } else {
                mapped = mapExposes(text: text)
                if result.mappedExposes.count < Self.distinctExposesLimit { result.mappedExposes[text] = mapped }
            }
        } else {
            mapped = mapExposes(entry[path: "definition.exposes"])  // read whole (or a key written with escapes)
        }
        switch mapped {
        case .problem(let problem):
            result.problems.append(
                SourceProblem(location: "\(location) (\(name))", message: problem + "; the device is kept as it was"))
        case .failed(let error):
            result.problems.append(SourceProblem(location: "\(location) (\(name))", message: error.description))
        case .mapped(let types):
            do {
                if let device = try mapDevice(entry, types: types, ieee: ieee, name: name) {
                    result.devices.append(device)
                }
            } catch {
                result.problems.append(SourceProblem(location: "\(location) (\(name))", message: error.description))
            }
        }
    }

    /// How many distinct exposes texts one list remembers (more are read each time).
    static let distinctExposesLimit = 4096

    /// An exposes text read and mapped: its problem, or its device types and bindings (none: the
    /// device exposes nothing the table knows).
    enum MappedExposes: Sendable {
        case problem(String)
        case failed(ModelError)
        case mapped(MappedTypes?)
    }

    /// A device's types and bindings, as its exposes make them (shared by the devices of a model).
    struct MappedTypes: Sendable {
        var instances: [DeviceTypeInstance]
        var bindings: [String: [SourceBinding]]
        /// Payload keys whose values are events too (a button's `action`).
        var notifyingKeys: [String] = []
    }

    /// The projection checked the text; a key written with escapes (kept as it was) may still
    /// bring a string value here, which is what the exposes are then.
    private func mapExposes(text: String) -> MappedExposes {
        guard let exposes = try? JSONDocument.parse(Array(text.utf8), maxDepth: 128).root else {
            return .problem("definition.exposes is string, expected a list")
        }
        return mapExposes(exposes)
    }

    private func mapExposes(_ exposes: JSON?) -> MappedExposes {
        if let problem = Self.exposesProblem(exposes) { return .problem(problem) }
        do {
            return .mapped(try mapTypes(exposes?.elements ?? []))
        } catch {
            return .failed(error)
        }
    }

    /// What is wrong with the shape of an entry's definition, if anything: `definition` is an
    /// object or null (its `exposes`: ``exposesProblem(_:)``).
    static func definitionProblem(_ entry: JSON) -> String? {
        guard let definition = entry["definition"], !definition.isNull else { return nil }
        guard definition.kind == .object else { return "definition is \(definition.kind), expected an object or null" }
        return nil
    }

    /// What is wrong with the shape of `exposes`, if anything: a list of objects, `features` lists of objects.
    static func exposesProblem(_ exposes: JSON?) -> String? {
        guard let exposes else { return nil }
        guard exposes.kind == .array else { return "definition.exposes is \(exposes.kind), expected a list" }
        var pending = exposes.elements
        var checked = 0
        while let expose = pending.popLast(), checked < 10_000 {
            checked += 1
            guard expose.kind == .object else { return "an expose is \(expose.kind), expected an object" }
            if let features = expose["features"] {
                guard features.kind == .array else { return "features is \(features.kind), expected a list" }
                pending += features.elements
            }
        }
        return nil
    }

    /// The device types and bindings `exposes` make, or `nil` when nothing is mapped.
    func mapTypes(_ exposes: [JSON]) throws(ModelError) -> MappedTypes? {
        var plan = DevicePlan()
        for expose in exposes {
            guard let type = expose["type"]?.string else { continue }
            if let composite = table.composites[type], expose["features"] != nil {
                planComposite(expose, type: type, rule: composite, into: &plan)
            } else if let property = expose["property"]?.string, let rule = table.properties[property],
                rule.feature.exposeUnit.map({ expose["unit"]?.isString($0) == true }) ?? true
            {
                let key = Self.key(for: rule.deviceType)
                plan.addType(key: key, type: rule.deviceType, order: order(of: rule.deviceType.description))
                if let binding = makeBinding(rule.feature, expose: expose, payloadKey: property, key: key) {
                    plan.bindOnce(property, binding)
                    if rule.feature.notifies, !plan.notifyingKeys.contains(property) {
                        plan.notifyingKeys.append(property)
                    }
                }
            }
        }
        guard !plan.types.isEmpty else { return nil }
        let primaryKey = plan.types.min { $0.order < $1.order }?.key
        var instances: [DeviceTypeInstance] = []
        for planned in plan.types {
            let definition = catalog.deviceType(planned.type)
            var traits = definition?.requiredTraits ?? []
            for binding in plan.bindings.values.joined()
            where binding.address.deviceTypeKey == planned.key && !traits.contains(binding.address.traitID) {
                traits.append(binding.address.traitID)
            }
            instances.append(
                try catalog.makeDeviceType(
                    key: planned.key, type: planned.type, isPrimaryType: planned.key == primaryKey, traits: traits))
        }
        return MappedTypes(instances: instances, bindings: plan.bindings, notifyingKeys: plan.notifyingKeys)
    }

    /// An entry's device, from the types and bindings its exposes make.
    func mapDevice(_ entry: JSON, types: MappedTypes?, ieee: String, name: String) throws(ModelError)
        -> Zigbee2MQTTDevice?
    {
        guard let types else { return nil }
        let instances = types.instances
        let definition = entry["definition"]
        let source = SourceReference(family: Self.family, instance: instance, nativeID: ieee)
        let device = try Device(
            id: DeviceID.derived(source: "z2m", nativeID: ieee),
            name: name,
            identity: DeviceIdentity(
                uniqueID: ieee, otherDeviceIDs: [OtherDeviceID(agentID: Self.family, deviceID: ieee)]),
            info: DeviceInfo(
                manufacturer: definition?["vendor"]?.string ?? entry["manufacturer"]?.string,
                model: definition?["model"]?.string ?? entry["model_id"]?.string,
                hardwareVersion: entry["date_code"]?.string,
                softwareVersion: entry["software_build_id"]?.string),
            sources: [source],
            deviceTypes: instances)
        let isBattery = entry["power_source"]?.string?.lowercased().hasPrefix("battery") == true
        return Zigbee2MQTTDevice(
            ieeeAddress: ieee, friendlyName: name, device: device, bindings: types.bindings,
            isBatteryPowered: isBattery, notifyingKeys: types.notifyingKeys)
    }

    private func planComposite(
        _ expose: JSON, type: String, rule: Zigbee2MQTTTable.Composite, into plan: inout DevicePlan
    ) {
        let features = expose["features"]?.elements ?? []
        let names = Set(features.compactMap { $0["name"]?.string })
        guard
            let deviceType = rule.deviceTypes.first(where: { $0.whenAny.isEmpty || !names.isDisjoint(with: $0.whenAny) }
            )?.type
        else { return }
        var key = type
        if let endpoint = expose["endpoint"]?.string { key += "_" + endpoint }
        var suffix = 2
        while plan.types.contains(where: { $0.key == key }) {
            key = "\(type)\(suffix)"
            suffix += 1
        }
        var bound: [String: [SourceBinding]] = [:]
        for feature in features {
            guard let name = feature["name"]?.string, let featureRule = rule.features[name],
                let property = feature["property"]?.string,
                featureRule.onlyProperties?.contains(property) ?? true
            else { continue }
            if let bindings = makeBinding(featureRule, expose: feature, payloadKey: property, key: key) {
                bound[property, default: []] += bindings
            }
        }
        guard !bound.isEmpty else { return }  // nothing this composite says is mapped
        plan.addType(key: key, type: deviceType, order: order(of: type))
        plan.bindings.merge(bound) { $0 + $1 }
    }

    /// The bindings of one feature (one, or one per field of an object value).
    private func makeBinding(_ rule: Zigbee2MQTTTable.Feature, expose: JSON, payloadKey: String, key: String)
        -> [SourceBinding]?
    {
        let address = TraitAddress(deviceTypeKey: key, traitID: rule.trait)
        let access = expose["access"]?.int64 ?? 1
        let isWritable = access & 2 != 0
        if !rule.fields.isEmpty {
            let subfeatures = expose["features"]?.elements ?? []
            return rule.fields.compactMap { field, target in
                guard let metadata = try? catalog.attributeMetadata(rule.trait, target.attribute) else { return nil }
                let property = subfeatures.first { $0["name"]?.isString(field) == true }?["property"]?.string ?? field
                return SourceBinding(
                    address: address, attribute: target.attribute, payloadKey: payloadKey, fieldKey: property,
                    pipeline: target.pipeline, metadata: metadata, isWritable: isWritable)
            }
        }
        guard let attribute = rule.attribute, var metadata = try? catalog.attributeMetadata(rule.trait, attribute)
        else { return nil }
        if rule.notifies { metadata.validValues = Self.eventValues(expose) }
        var steps = rule.pipeline.steps
        if rule.isBinaryFromExpose, let on = expose["value_on"], let off = expose["value_off"] {
            var pairs = [
                ValueTransform.ValuePair(source: AttributeValue(json: on), model: .bool(true)),
                ValueTransform.ValuePair(source: AttributeValue(json: off), model: .bool(false)),
            ]
            if let toggle = expose["value_toggle"] {
                pairs.append(.init(source: AttributeValue(json: toggle), model: .string("toggle")))
            }
            steps.insert(.map(pairs), at: 0)
        }
        var range: ClosedRange<Double>?
        if rule.clampsToExposeRange || expose["value_min"] != nil, let low = expose["value_min"]?.double,
            let high = expose["value_max"]?.double, low <= high
        {
            range = low...high
        }
        let step = expose["value_step"]?.double ?? 1
        let isIntegral = expose["type"]?.isString("numeric") == true && step == step.rounded()
        return [
            SourceBinding(
                address: address, attribute: attribute, payloadKey: payloadKey, pipeline: ValuePipeline(steps),
                metadata: metadata, isWritable: isWritable, sourceRange: range, isIntegral: isIntegral)
        ]
    }

    /// An event expose's own values (`single`, `double`, `hold`), as the model's valid values:
    /// non-empty strings the attribute can hold, each once, at most 256; nil when it lists none.
    static func eventValues(_ expose: JSON) -> [ValidValue]? {
        var values: [ValidValue] = []
        for element in expose["values"]?.elements ?? [] where values.count < 256 {
            guard let text = element.string, !text.isEmpty, text.utf8.count <= 64,
                !values.contains(where: { $0.value == .string(text) })
            else { continue }
            values.append(ValidValue(.string(text)))
        }
        return values.isEmpty ? nil : values
    }

    private func order(of name: String) -> Int {
        table.primaryOrder.firstIndex(of: name) ?? table.primaryOrder.count
    }

    /// `matter.TemperatureSensor` → `temperatureSensor`.
    static func key(for type: DeviceTypeID) -> String {
        type.name.prefix(1).lowercased() + type.name.dropFirst()
    }
}

/// Device types and bindings collected while reading one device's exposes.
struct DevicePlan {
    var types: [(key: String, type: DeviceTypeID, order: Int)] = []
    var bindings: [String: [SourceBinding]] = [:]
    var notifyingKeys: [String] = []

    mutating func addType(key: String, type: DeviceTypeID, order: Int) {
        if !types.contains(where: { $0.key == key }) { types.append((key, type, order)) }
    }

    /// Binds a standalone property's attributes, except those an earlier expose already binds: one
    /// attribute holds one value, and which key fed it must not depend on the order a dictionary
    /// iterates in (`presence` and `occupancy` on one sensor: the first exposed wins).
    mutating func bindOnce(_ property: String, _ bindings: [SourceBinding]) {
        let fresh = bindings.filter { binding in
            !self.bindings.values.joined().contains {
                $0.address == binding.address && $0.attribute == binding.attribute
            }
        }
        if !fresh.isEmpty { self.bindings[property, default: []] += fresh }
    }
}
