import Foundation
import TraitBridgeCloud
import TraitBridgeEngine
import TraitBridgeHomeAssistant
import TraitBridgeHomeKit
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgePresentation
import TraitBridgeSources
import TraitBridgeStore

/// The bridge the fuzz targets start from: the shipped mappings, every source enabled, a device of
/// each source known (and a cloud home imported), so that a fuzzed message meets real devices.
/// Built once per process; each input runs on a copy of the prepared state.
struct FuzzWorld: Sendable {
    static let shared: FuzzWorld = {
        do {
            return try FuzzWorld(repository: FuzzPaths.repository)
        } catch {
            fatalError("cannot build the fuzz world from \(FuzzPaths.repository): \(error)")
        }
    }()

    let catalog: Catalog
    let cloud: GoogleC2C
    let mappingsDirectory: String
    /// The shipped HomeKit table (`homekit-requests`).
    let homeKitTable: HomeKitTable
    /// The zigbee2mqtt table alone: what a restored bridge and a generic file's bridge read with.
    let zigbee2mqttTables: SourceTables
    let prepared: BridgeState
    /// Devices imported from the cloud fixture, for QUERY reports to land on.
    let cloudDevices: [String: Device]
    /// What the prepared bridge published, last payload per topic (the `cli` target's seed).
    let retained: [String: [UInt8]]
    /// The `registry` target's seeds: the descriptions of the devices it wrote to the registry (what an
    /// older registry kept) and its cloud origins' `attributes`.
    let stored: [(name: String, bytes: [UInt8])]
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    init(repository: String) throws {
        mappingsDirectory = repository + "/mappings"
        catalog = try CatalogLoader.load(mappingsDirectory: mappingsDirectory)
        let table = try GoogleC2CTable.load(mappingsDirectory: mappingsDirectory, catalog: catalog)
        cloud = GoogleC2C(catalog: catalog, table: table)
        homeKitTable = try HomeKitTable.load(mappingsDirectory: mappingsDirectory, catalog: catalog)
        var configuration = BridgeConfiguration(
            prefix: "traitbridge", brokerDescription: "mqtt://127.0.0.1:1883",
            sources: [
                .zigbee2mqtt(locality: .localPeer, mainsStaleness: .seconds(600), batteryStaleness: .seconds(90_000)),
                .tasmota(locality: .localPeer), .shelly(locality: .localPeer), .homeAssistant(locality: .localPeer),
                .matter(url: "ws://127.0.0.1:5580/ws"), .frigate(locality: .localPeer, go2rtc: "http://127.0.0.1:1984"),
                .generic,
            ],
            commandTimeout: .seconds(3))
        configuration.sourceLocality = .localPeer
        // The history's records are made (and its requests read) as `serve` does by default.
        configuration.recordsHistory = true
        // Home Assistant discovery out, so its status and config topics are fuzzed with the rest.
        let homeAssistantTable = try HomeAssistantExportTable.load(
            mappingsDirectory: mappingsDirectory, catalog: catalog)
        configuration.homeAssistant = HomeAssistantExport(
            discovery: HomeAssistantDiscovery(
                table: homeAssistantTable, catalog: catalog,
                settings: .init(
                    discoveryPrefix: "homeassistant", bridgePrefix: "traitbridge", bridgeName: "fuzz", version: "fuzz"))
        )
        var tables = try SourceRegistry.standard.loadTables(mappingsDirectory: mappingsDirectory, catalog: catalog)
        tables[GenericFamily().name] = try GenericDevicesLoader.load(
            mappingsDirectory: FuzzPaths.genericMappings, catalog: catalog)
        var zigbee2mqttTables = SourceTables()
        zigbee2mqttTables[Zigbee2MQTTFamily().name] = tables[Zigbee2MQTTFamily().name]
        self.zigbee2mqttTables = zigbee2mqttTables
        var state = BridgeState(
            configuration: configuration, catalog: catalog, tables: tables, graph: try HomeGraph(), cloud: table,
            now: Date())
        var retained: [String: [UInt8]] = [:]
        var stored: [(name: String, bytes: [UInt8])] = []
        var written: [DeviceRecord] = []
        func keep(_ effects: BridgeEffects) {
            for publication in effects.publications where publication.isRetained {
                retained[publication.topic] = publication.payload
            }
            for change in effects.storeChanges {
                switch change {
                case .upsert(let record): written.append(record)
                case .saveCloudDevice(let origin, _): stored.append((origin.c2cID, Array(origin.attributes.utf8)))
                default: break
                }
            }
        }
        keep(state.brokerConnected(now: start))
        for (topic, payload) in FuzzSeeds.preparation + FuzzSeeds.matterPreparation {
            keep(Self.deliver(&state, topic, payload, now: start))
        }
        keep(state.tick(now: start))
        // A record's seed is the device's description: what registries before typed records kept.
        for record in written {
            let topic = "\(state.configuration.prefix)/devices/\(record.id.rawValue)"
            if let description = retained[topic] { stored.append((record.name, description)) }
        }
        let sync = try FuzzPaths.bytes(FuzzPaths.cloudFixtures + "/home-sync.json")
        var cloudDevices: [String: Device] = [:]
        for imported in try cloud.importSync(sync, source: "fixture", now: start).devices {
            cloudDevices[imported.origin.c2cID] = imported.device
        }
        prepared = state
        self.cloudDevices = cloudDevices
        self.retained = retained
        self.stored = stored
    }

    /// Registry rows of a registry before typed records (`name` + newline + the stored description)
    /// read as migration v8 reads them and put back into an empty bridge, each also as a kept SYNC
    /// entry; then the bridge connects and publishes them.
    func restore(_ messages: [(topic: String, payload: [UInt8])]) {
        guard let graph = try? HomeGraph() else { return }
        var state = BridgeState(
            configuration: prepared.configuration, catalog: catalog, tables: zigbee2mqttTables, graph: graph,
            cloud: cloud.table, now: Date())
        var rows: [DeviceStore.Row] = []
        for (index, message) in messages.enumerated() {
            guard let id = try? DeviceID("z2m-fuzz\(index)") else { continue }
            let (record, problems) = LegacyDescription.record(
                id: id, name: message.topic, roomName: index % 2 == 0 ? nil : message.topic,
                source: SourceReference(family: "zigbee2mqtt", instance: "default", nativeID: "fuzz\(index)"),
                description: message.payload)
            rows.append(DeviceStore.Row(record: record, firstSeen: start, lastSeen: start, problems: problems))
        }
        _ = state.restore(rows)
        // Each payload also as a kept cloud device (its device record and Google's objects) and as
        // the SYNC entry a registry before typed records kept.
        var cloudRows: [DeviceStore.Row] = []
        var origins: [CloudOriginRecord] = []
        for (index, message) in messages.enumerated() {
            guard let id = try? DeviceID("c2c-fuzz\(index)") else { continue }
            let text = String(decoding: message.payload, as: UTF8.self)
            let (record, _) = LegacyDescription.record(
                id: id, name: message.topic, roomName: nil,
                source: SourceReference(family: GoogleC2C.family, instance: "default", nativeID: "fuzz\(index)"),
                description: message.payload)
            cloudRows.append(DeviceStore.Row(record: record, firstSeen: start, lastSeen: start))
            origins.append(
                CloudOriginRecord(
                    c2cID: "fuzz\(index)", deviceID: id, name: message.topic, type: message.topic, traits: [text],
                    attributes: text, customData: index % 2 == 0 ? text : nil, deviceInfo: index % 3 == 0 ? text : nil))
        }
        _ = state.restoreCloud(origins, rows: cloudRows, now: start)
        _ = state.importLegacyCloud(messages.enumerated().map { ("c\($0.offset)", $0.element.payload) }, now: start)
        Self.check(state.brokerConnected(now: start))
    }

    /// Messages in order on a copy of the prepared bridge, then a tick an hour later (timeouts,
    /// staleness, health). Every state or description published must be JSON.
    func receive(_ messages: [(topic: String, payload: [UInt8])]) {
        var state = prepared
        for message in messages {
            Self.check(Self.deliver(&state, message.topic, message.payload, now: start))
        }
        // Timers, holds and end actions of whatever the messages made: a minute, an hour, a day on.
        for seconds in [121.0, 3_600, 86_400] { Self.check(state.tick(now: start.addingTimeInterval(seconds))) }
    }

    /// The live view's signalling with what a camera or a viewer may send: the input as a viewer's
    /// offer, and as a camera's answer (and its resource) to a good offer; then the session's time
    /// runs out. Every result published must be JSON; a refusal must say why.
    func liveView(_ bytes: [UInt8]) {
        var state = prepared
        let topic = "traitbridge/devices/frigate-front_door/set"
        let text = String(decoding: bytes, as: UTF8.self)
        func startLiveView(_ offer: String) -> BridgeEffects {
            let command: JSONValue = [
                "id": "fuzz", "trait": "google.WebRtcLiveView", "command": "startLiveView",
                "arguments": ["offerSdp": .string(offer)],
            ]
            return state.handleMessage(topic: topic, payload: command.serializedBytes(), now: start)
        }
        Self.check(startLiveView(text))
        let good = startLiveView("v=0\r\ns=-\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n")
        Self.check(good)
        for request in good.signalling {
            Self.check(
                state.signallingAnswered(
                    .answer(sdp: text, resource: String(text.prefix(200))), requestID: request.requestID, now: start))
        }
        Self.check(state.tick(now: start.addingTimeInterval(301)))
    }

    /// A broker message, or one of the Matter Server's edge connection (`matter/default/…`).
    static func deliver(_ state: inout BridgeState, _ topic: String, _ payload: [UInt8], now: Date) -> BridgeEffects {
        if let channel = state.channels.first(where: { topic.hasPrefix($0 + "/") }) {
            return state.handleChannelMessage(channel: channel, topic: topic, payload: payload, now: now)
        }
        return state.handleMessage(topic: topic, payload: payload, now: now)
    }

    static func check(_ effects: BridgeEffects) {
        for publication in effects.publications
        where publication.topic.hasPrefix("traitbridge/") && !publication.payload.isEmpty {
            // Everything the bridge publishes under its prefix is JSON, but its `bridge/state` word.
            guard publication.topic != "traitbridge/bridge/state" else { continue }
            do {
                _ = try JSONDocument.parse(publication.payload)
            } catch {
                preconditionFailure(
                    "\(publication.topic) was published as invalid JSON (\(error)): "
                        + String(decoding: publication.payload.prefix(300), as: UTF8.self))
            }
        }
    }

    /// A SYNC response: imported, each device's kept entry read back (what the registry stores
    /// must restore), and exported again as SYNC and QUERY responses that are JSON.
    func importSync(_ bytes: [UInt8]) {
        let read = Result { () throws(CloudError) in try cloud.importSync(bytes, source: "fuzz", now: start) }
        let readWhole = Result { () throws(CloudError) in
            try cloud.importSync(bytes, source: "fuzz", now: start, reading: .whole)
        }
        switch (read, readWhole) {
        case (.success(let a), .success(let b)):
            precondition(a == b, "read element by element, a SYNC imports otherwise")
        case (.failure(let a), .failure(let b)):
            precondition("\(a)" == "\(b)", "read element by element, a SYNC is refused otherwise: \(a) vs \(b)")
        default:
            preconditionFailure("read element by element and whole, a SYNC is refused once: \(read) vs \(readWhole)")
        }
        guard case .success(let result) = read else { return }
        var inputs: [CloudExportInput] = []
        for imported in result.devices {
            if let entry = cloud.syncEntryBytes(for: imported) {
                do {
                    let restored = try cloud.importSync(
                        Array(#"{"devices":["#.utf8) + entry + Array("]}".utf8), source: "registry", now: start)
                    precondition(
                        restored.devices.count == 1, "an exported SYNC entry imports \(restored.devices.count) devices")
                } catch {
                    let text = String(decoding: entry.prefix(300), as: UTF8.self)
                    preconditionFailure("an exported SYNC entry does not import: \(error): \(text)")
                }
            }
            inputs.append(CloudExportInput(device: imported.device, origin: imported.origin))
        }
        let sync = cloud.syncResponse(inputs, agentUserID: "fuzz", requestID: "1").response.serializedBytes()
        let query = cloud.queryResponse(inputs, requestID: "1").serializedBytes()
        for bytes in [sync, query] where (try? JSONDocument.parse(bytes)) == nil {
            preconditionFailure("an export is not JSON: \(String(decoding: bytes.prefix(300), as: UTF8.self))")
        }
    }

    /// A QUERY/EXECUTE response or Report State, applied to the fixture's cloud devices, then
    /// exported as a QUERY response that must be JSON.
    func importReports(_ bytes: [UInt8]) {
        guard let result = try? cloud.importReports(bytes, source: "fuzz") else { return }
        var inputs: [CloudExportInput] = []
        for report in result.reports.prefix(64) {
            guard var device = cloudDevices[report.c2cID] ?? cloudDevices.values.first else { continue }
            let applied = cloud.apply(report, to: &device, now: start)
            _ = cloud.connectivity(of: report)
            inputs.append(CloudExportInput(device: device, extraStates: applied.unmapped))
        }
        let query = cloud.queryResponse(inputs, requestID: "1").serializedBytes()
        if (try? JSONDocument.parse(query)) == nil {
            preconditionFailure("a QUERY export is not JSON: \(String(decoding: query.prefix(300), as: UTF8.self))")
        }
    }

    /// Whatever a presentation table says, every value it names is shown, read back and refused
    /// without a trap (a transform's clamp, a decimals count, a label that is not a word).
    func present(with table: PresentationTable) {
        let presenter = ValuePresenter(table: table)
        let keys = Array(table.attributes.keys) + table.cards.values.flatMap { $0 } + Array(table.controls.keys)
        for key in keys.prefix(64) {
            guard let dot = key.lastIndex(of: "."), let trait = TraitID(parsing: String(key[..<dot])) else { continue }
            let metadata = try? catalog.attributeMetadata(trait, String(key[key.index(after: dot)...]))
            for value in [AttributeValue.int(0), .int(-1), .int(Int64.max), .double(1e300), .bool(true), .null] {
                _ = presenter.text(value, of: key, metadata: metadata)
                if let metadata { _ = presenter.refusal(value, of: key, metadata: metadata, asSent: true) }
            }
            for input in ["50 %", "-1e308 °C", "on", "40 % open", "1e400 K"] {
                _ = try? presenter.read(input, of: key, metadata: metadata)
            }
            if let metadata { _ = presenter.allowed(of: key, metadata: metadata) }
        }
        _ = presenter.cardKeys(deviceTypes: Array(table.cards.keys))
    }

    /// The first byte picks a mappings file; the rest of the input replaces it.
    func mappings(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let files = FuzzSeeds.mappingFiles
        let name = files[Int(selector) % files.count]
        let contents = Array(bytes.dropFirst())
        let path = mappingsDirectory + "/" + name
        if name.hasPrefix("catalog/") {
            var catalogFiles: [(name: String, bytes: [UInt8]?)] = []
            for other in files where other.hasPrefix("catalog/") {
                catalogFiles.append(
                    (other, other == name ? contents : try? FuzzPaths.bytes(mappingsDirectory + "/" + other)))
            }
            _ = CatalogLoader.validate(files: catalogFiles)
            return
        }
        switch name {
        case "sources/zigbee2mqtt.json": _ = try? Zigbee2MQTTTable.decode(file: path, bytes: contents, catalog: catalog)
        case "sources/tasmota.json": _ = try? TasmotaTable.decode(file: path, bytes: contents, catalog: catalog)
        case "sources/shelly.json": _ = try? ShellyTable.decode(file: path, bytes: contents, catalog: catalog)
        case "sources/frigate.json": _ = try? FrigateTable.decode(file: path, bytes: contents, catalog: catalog)
        case "sources/homeassistant.json":
            _ = try? HomeAssistantTable.decode(file: path, bytes: contents, catalog: catalog)
        case "cloud/google-c2c.json": _ = try? GoogleC2CTable.decode(file: path, bytes: contents, catalog: catalog)
        case "homekit/accessories.json": _ = try? HomeKitTable.decode(file: path, bytes: contents, catalog: catalog)
        case "homeassistant/entities.json":
            _ = try? HomeAssistantExportTable.decode(file: path, bytes: contents, catalog: catalog)
        case MatterClusterTable.file:
            _ = try? MatterClusterTable.decode(file: path, bytes: contents, catalog: catalog)
        case PresentationTable.relativePath:
            guard let table = try? PresentationTable.decode(file: path, bytes: contents, catalog: catalog) else {
                return
            }
            present(with: table)
        default:
            guard let devices = try? GenericDevicesLoader.decode(file: path, bytes: contents, catalog: catalog) else {
                return
            }
            // Whatever a generic file declares, a bridge must be able to start with it.
            let configuration = BridgeConfiguration(brokerDescription: "mqtt://127.0.0.1:1883", sources: [.generic])
            guard let graph = try? HomeGraph() else { return }
            var tables = zigbee2mqttTables
            tables[GenericFamily().name] = devices
            var state = BridgeState(
                configuration: configuration, catalog: catalog, tables: tables, graph: graph, now: Date())
            Self.check(state.brokerConnected(now: start))
        }
    }
}
