import FoundationEssentials
public import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

extension BridgeState {
    /// Google Cloud-to-cloud import, export and EXECUTE; `nil` without `mappings/cloud/google-c2c.json`.
    public var cloud: GoogleC2C? { cloudImport.c2c }

    var cloudResponseTopic: String { "\(configuration.prefix)/cloud/response" }
    var cloudExecuteTopic: String { "\(configuration.prefix)/cloud/execute" }

    /// Takes the devices of a SYNC import: each joins the local device of the same identity (or
    /// config alias) or stands alone in the room of its `roomHint`; a device imported again
    /// replaces its earlier import. Returns a summary for the CLI.
    mutating func importCloud(
        _ result: SyncImport, now: Date, persist: Bool = true, effects: inout BridgeEffects
    ) -> JSONObject {
        var imported: [JSONValue] = []
        var rooms: [String: RoomID] = [:]
        for item in result.devices {
            let c2cID = item.origin.c2cID
            if let old = cloudImport.devices[c2cID] {
                cloudImport.devices.set(c2cID, nil)
                detachCloud(old, effects: &effects)
            }
            var runtime = CloudRuntime(
                origin: item.origin, source: item.device.sources[0], identity: item.device.identity,
                ownID: item.device.id,
                target: item.device.id, keys: item.device.deviceTypes.map(\.key), types: item.device.deviceTypes)
            runtime.lastAnswer = now
            cloudImport.devices.set(c2cID, runtime)
            var standalone = item.device
            if graph.devices[standalone.id] != nil { try? graph.removeDevice(standalone.id) }
            standalone.name = item.device.name
            try? graph.addDevice(standalone)
            place(standalone.id, roomHint: item.origin.roomHint, rooms: &rooms, effects: &effects)
            published.imported(standalone.id, sourceName: item.device.name)
            applyPlacement(standalone.id, effects: &effects)
            if persist {
                effects.storeChanges.append(.saveCloudDevice(Self.originRecord(item), Self.importedRecord(item)))
            }
            var summary = JSONObject()
            summary.append("c2cId", .string(c2cID))
            if let targetID = localTarget(for: runtime), var target = graph.devices[targetID] {
                attachCloud(to: &target, effects: &effects)
                try? graph.updateDevice(target)
                summary.append("device", .string(targetID.rawValue))
                summary.append("mergedInto", .string(target.name))
                refresh(targetID, now: now, effects: &effects, republishDescription: true)
                if configuration.recordsHistory {
                    recordConnectivity(of: targetID, forTraitsOf: runtime.source, effects: &effects)
                }
            } else {
                summary.append("device", .string(standalone.id.rawValue))
                published.valuesKnown(standalone.id, since: now)
                refresh(standalone.id, now: now, effects: &effects, republishDescription: true)
                if configuration.recordsHistory {
                    recordConnectivity(of: standalone.id, forTraitsOf: nil, effects: &effects)
                }
            }
            imported.append(.object(summary))
        }
        effects.log(.info, "imported \(result.devices.count) cloud devices, \(result.problems.count) problems")
        var summary = JSONObject()
        summary.append("status", .string("ok"))
        summary.append("imported", .array(imported))
        summary.append(
            "problems",
            .array(
                result.problems.map { problem in
                    [
                        "path": .string(problem.path.description), "message": .string(problem.message),
                        "deviceRejected": .bool(problem.rejectsDevice),
                    ]
                }))
        return summary
    }

    /// The local device a cloud device joins: a config alias, else the first (by id) device of
    /// another source whose identity names the same physical device (the graph's identity index:
    /// a SYNC of 10 000 devices looks each up instead of comparing with every device).
    func localTarget(for runtime: CloudRuntime) -> DeviceID? {
        if let alias = configuration.cloudAliases[runtime.origin.c2cID], graph.devices[alias] != nil { return alias }
        let identity = runtime.identity
        return graph.devices(sharingIdentityWith: identity).first { id in
            guard id != runtime.ownID, let device = graph.devices[id] else { return false }
            return device.sources.contains { !CloudImport.feeds($0) } && device.identity.matches(identity)
        }
    }

    /// Adds to `device` the types of every cloud device that targets it or, standing alone, has
    /// its identity (or alias): each cloud trait keeps its own source, values and connectivity.
    mutating func attachCloud(to device: inout Device, effects: inout BridgeEffects) {
        guard device.sources.contains(where: { !CloudImport.feeds($0) }), !cloudImport.devices.isEmpty else {
            return
        }
        // The cloud devices on it, the standalone ones that share an identity key with it, and
        // those the config aliases to it: looked up, not found by a scan of every cloud device.
        var candidates = cloudImport.devices.ids(on: device.id)
        for id in graph.devices(sharingIdentityWith: device.identity) {
            candidates.formUnion(cloudImport.devices.ids(on: id))
        }
        for (c2cID, alias) in configuration.cloudAliases where alias == device.id { candidates.insert(c2cID) }
        for c2cID in candidates.sorted() {
            guard var runtime = cloudImport.devices[c2cID] else { continue }
            let aliased = configuration.cloudAliases[c2cID] == device.id
            guard
                runtime.target == device.id
                    || (runtime.isStandalone && (aliased || runtime.identity.matches(device.identity)))
            else { continue }
            let holder = graph.devices[runtime.target]
            var types = runtime.keys.compactMap { holder?.deviceType(key: $0) }
            if types.isEmpty { types = runtime.types }
            if runtime.isStandalone {
                try? graph.removeDevice(runtime.ownID)
                clearRetained(runtime.ownID, effects: &effects)
                effects.log(
                    .info,
                    "merged cloud device \(runtime.origin.c2cID) into \(device.name): "
                        + (aliased ? "config alias" : "same identity"), ["tb.device.id": device.id.rawValue])
            }
            var keys: [String] = []
            for var type in types {
                while device.deviceType(key: type.key) != nil && !keys.contains(type.key) {
                    type.key = "cloud-" + type.key
                }
                device.removeDeviceType(key: type.key)
                if device.deviceTypes.contains(where: \.isPrimaryType) { type.isPrimaryType = false }
                try? device.addDeviceType(type)
                keys.append(type.key)
            }
            if !device.sources.contains(runtime.source) { device.sources.append(runtime.source) }
            device.identity.vendorID = device.identity.vendorID ?? runtime.identity.vendorID
            device.identity.productID = device.identity.productID ?? runtime.identity.productID
            for other in runtime.identity.otherDeviceIDs where !device.identity.otherDeviceIDs.contains(other) {
                device.identity.otherDeviceIDs.append(other)
            }
            runtime.target = device.id
            runtime.keys = keys
            cloudImport.devices.set(c2cID, runtime)
            // Its traits' history goes on under the device they joined.
            if configuration.recordsHistory {
                Self.recordConnectivity(of: device, forTraitsOf: runtime.source, effects: &effects)
            }
        }
    }

    /// Takes a cloud device's traits off its target (or removes it when it stands alone).
    mutating func detachCloud(_ runtime: CloudRuntime, effects: inout BridgeEffects) {
        if runtime.isStandalone {
            try? graph.removeDevice(runtime.ownID)
            clearRetained(runtime.ownID, effects: &effects)
        } else {
            _ = try? graph.modifyDevice(runtime.target) { device in
                for key in runtime.keys { device.removeDeviceType(key: key) }
                device.sources.removeAll { $0 == runtime.source }
            }
        }
    }

    /// Puts a standalone cloud device in the room its `roomHint` names (creating the room);
    /// `rooms` remembers the rooms found during one import.
    mutating func place(_ id: DeviceID, roomHint: String?, rooms: inout [String: RoomID], effects: inout BridgeEffects)
    {
        guard let roomHint, !roomHint.isEmpty else { return }
        let home = graph.primaryHome.id
        do {
            let room = try rooms[roomHint] ?? graph.room(named: roomHint, addingTo: home)
            rooms[roomHint] = room
            try graph.assignDevice(id, to: room)
        } catch {
            effects.log(.warning, "roomHint '\(roomHint)' not used: \(error)", ["tb.device.id": id.rawValue])
        }
    }

    /// A QUERY response, EXECUTE response or Report State from the cloud: values and connectivity
    /// of the cloud traits. Returns a summary for the CLI.
    @discardableResult
    mutating func handleCloudReports(
        _ payload: [UInt8], source: String, instance: String? = nil, now: Date, effects: inout BridgeEffects
    ) -> JSONObject {
        var summary = JSONObject()
        guard let cloud else { return summary }
        let result: CloudReportImport
        do {
            result = try cloud.importReports(payload, source: source)
        } catch {
            effects.log(.warning, "rejected cloud report: \(error)", ["tb.mqtt.topic": source])
            return ["status": "error", "message": .string(error.description)]
        }
        var updated: [JSONValue] = []
        var unknown: [JSONValue] = []
        var problems: [JSONValue] = result.problems.map { .string($0.description) }
        for report in result.reports {
            guard var runtime = cloudImport.devices[report.c2cID],
                instance == nil || runtime.source.instance == instance
            else {
                unknown.append(.string(report.c2cID))
                continue
            }
            let applied = try? graph.modifyDevice(runtime.target) { device in cloud.apply(report, to: &device, now: now)
            }
            guard let applied else { continue }
            for (key, value) in applied.unmapped { runtime.extraStates[key] = value }
            runtime.lastAnswer = now
            runtime.isStale = false
            cloudImport.devices.set(report.c2cID, runtime)
            problems += applied.problems.map { .string("\(report.path): \($0)") }
            if applied.valuesChanged { published.valuesChanged(runtime.target, at: now) }
            if configuration.recordsHistory {
                // The writer keeps only what differs from each series' last change.
                if applied.valuesChanged {
                    recordValues(of: runtime.target, forTraitsOf: runtime.source, at: now, effects: &effects)
                }
                if applied.connectivityChanged {
                    recordConnectivity(of: runtime.target, forTraitsOf: runtime.source, effects: &effects)
                }
            }
            refresh(
                runtime.target, now: now, effects: &effects,
                valuesChanged: applied.valuesChanged || applied.connectivityChanged)
            confirmCommands(for: runtime.target, now: now, effects: &effects)
            updated.append(.string(runtime.target.rawValue))
        }
        if !unknown.isEmpty {
            effects.log(.notice, "cloud report for devices never imported: \(unknown.count)", ["tb.mqtt.topic": source])
        }
        summary.append("status", .string("ok"))
        summary.append("updated", .array(updated))
        summary.append("unknownIds", .array(unknown))
        summary.append("problems", .array(problems))
        return summary
    }

}
