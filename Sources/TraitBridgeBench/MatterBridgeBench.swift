import Foundation
import TraitBridgeMapping
import TraitBridgeMatterBridge
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeMatterInteraction
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport
import TraitBridgeModel

#if canImport(Glibc)
    import Glibc
#endif

/// The Matter bridge's costs at 150 and 1 000 devices, in process (`TB_BENCH=matter-bridge make bench`):
/// planning and numbering the devices, a read of every endpoint (every chunk answered), the heap a
/// subscription to everything holds once primed, and a device's change until the subscriber's report
/// is sent (the layout's update, the node's replace and its report; MQTT and the engine not included).
/// A third of the devices are dimmable lights, a third composed climate sensors, a third contact sensors.
func benchmarkMatterBridge(mappings: String) throws {
    let catalog = try CatalogLoader.load(mappingsDirectory: mappings)
    let table = try MatterClusterTable.load(mappingsDirectory: mappings, catalog: catalog)
    let planner = BridgedDevicePlanner(catalog: catalog, table: table)
    var generator = SystemRandomNumberGenerator()
    let setup = try MatterSetup(
        passcode: try SetupPasscode(20_202_021), discriminator: 3840, vendorID: 0xFFF1, productID: 0x8001,
        using: &generator)
    let commissioning = try setup.commissioning()
    print("Matter bridge (in process), median of 7 where timed")
    for count in [150, 1_000] {
        var devices: [DeviceID: Device?] = [:]
        for index in 0..<count { devices[try DeviceID("bench-\(index)")] = try benchDevice(index, isOn: false) }
        var layout = MatterBridgeLayout(planner: planner, assignments: [])
        var start = nanoseconds()
        let change = layout.update(devices, using: &generator)
        let planned = Double(nanoseconds() - start) / 1e6
        let model = NodeDataModel(root: RootEndpoint(), endpoints: layout.endpoints, using: &generator)
        var node = MatterNode<String>(commissioning: commissioning, dataModel: model, using: &generator)
        var link = BenchCommissioner(peer: "bench-bridge")
        _ = try link.pase(with: &node, passcode: 20_202_021)

        var reads: [UInt64] = []
        var chunks = 0
        var bytes = 0
        for round in 0..<7 {
            var spent: UInt64 = 0
            let exchange = UInt16(10 + round)
            let read = ReadRequest(attributeRequests: [AttributePath()], isFabricFiltered: false).encoded
            var reply = try link.interact(.readRequest, read, exchange: exchange, with: &node, spent: &spent)
            (chunks, bytes) = (0, 0)
            while let message = reply, chunks < 100_000 {
                chunks += 1
                bytes += message.payload.count
                guard try ReportData(decoding: message.payload).moreChunkedMessages else { break }
                reply = try link.interact(
                    .statusResponse, StatusResponse(.success).encoded, exchange: exchange,
                    ack: message.header.messageCounter, with: &node, spent: &spent)
            }
            reads.append(spent)
        }

        let before = heapInUse()
        let subscribe = SubscribeRequest(
            keepSubscriptions: false, minIntervalFloorSeconds: 0, maxIntervalCeilingSeconds: 60,
            attributeRequests: [AttributePath()], isFabricFiltered: true)
        var spent: UInt64 = 0
        var reply = try link.interact(.subscribeRequest, subscribe.encoded, exchange: 100, with: &node, spent: &spent)
        var primed = 0
        while let message = reply, message.protocolHeader.opcode == InteractionModelOpcode.reportData.rawValue,
            primed < 100_000
        {
            primed += 1
            reply = try link.interact(
                .statusResponse, StatusResponse(.success).encoded, exchange: 100, ack: message.header.messageCounter,
                with: &node, spent: &spent)
        }
        let held = Double(heapInUse() - before) / 1024

        var changes: [UInt64] = []
        for round in 0..<7 {
            let id = try DeviceID("bench-\(3 * round)")
            start = nanoseconds()
            let changed = layout.update([id: try benchDevice(3 * round, isOn: true)], using: &generator)
            let effects = node.replace(changed.changed, removing: changed.removed, now: link.now)
            changes.append(nanoseconds() - start)
            // The report is answered, as a controller does, so the next change is reported at once.
            guard try link.acknowledgeReport(in: effects, with: &node) else {
                throw BenchError.noAnswer("no report for a change")
            }
        }
        let endpoints = change.changed.count - 1
        print("  \(count) devices (\(endpoints) endpoints beside the aggregator)")
        print("    plan and number every device: \(String(format: "%.1f", planned)) ms")
        print(
            "    read of every endpoint: \(String(format: "%.1f", medianMicroseconds(reads) / 1000)) ms"
                + " (\(chunks) ReportData messages, \(bytes / 1024) KiB)")
        print(
            "    memory (RSS after malloc_trim) a primed subscription to everything holds: "
                + "\(String(format: "%.0f", held)) KiB"
        )
        print("    a device's change to its report: \(String(format: "%.0f", medianMicroseconds(changes))) µs")
    }
}

/// The process's RSS in bytes once malloc has given back what it can (pages: a coarse measure).
private func heapInUse() -> Int {
    _ = mallocTrim(0)
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

extension BenchCommissioner {
    /// Answers the subscription report among `effects` with SUCCESS on its exchange; false without one.
    mutating func acknowledgeReport(
        in effects: [MatterNode<String>.Effect], with node: inout MatterNode<String>
    ) throws -> Bool {
        guard let keys else { throw BenchError.noAnswer("no session") }
        for case .send(let bytes, _) in effects {
            guard (try? MessageHeader.decode(bytes).header.isUnsecured) == false else { continue }
            let report = try Message.open(bytes, key: keys.responderToInitiator, senderNodeID: 0)
            guard report.protocolHeader.opcode == InteractionModelOpcode.reportData.rawValue else { continue }
            counter += 1
            let answer = Message(
                header: MessageHeader(sessionID: initiator.responderSessionID, messageCounter: counter),
                protocolHeader: ProtocolHeader(
                    isInitiator: false, needsAck: true, acknowledgedMessageCounter: report.header.messageCounter,
                    opcode: InteractionModelOpcode.statusResponse.rawValue,
                    exchangeID: report.protocolHeader.exchangeID, protocolID: .interactionModel),
                payload: StatusResponse(.success).encoded)
            _ = node.handle(
                .datagram(try answer.sealed(key: keys.initiatorToResponder, senderNodeID: 0), from: peer, now: now))
            return true
        }
        return false
    }
}

private func medianMicroseconds(_ values: [UInt64]) -> Double { Double(values.sorted()[values.count / 2]) / 1000 }

/// Device `index` of the bench home: a dimmable light, a climate sensor or a contact sensor.
private func benchDevice(_ index: Int, isOn: Bool) throws -> Device {
    func trait(_ id: String, _ values: [String: AttributeValue]) -> TraitInstance {
        TraitInstance(
            traitID: TraitID(parsing: id)!, attributes: values,
            connectivity: TraitConnectivity(state: .online, locality: .localPeer))
    }
    func type(_ key: String, _ id: String, primary: Bool, _ traits: [TraitInstance]) -> DeviceTypeInstance {
        DeviceTypeInstance(key: key, typeID: DeviceTypeID(parsing: id)!, isPrimaryType: primary, traits: traits)
    }
    let types: [DeviceTypeInstance]
    switch index % 3 {
    case 0:
        types = [
            type(
                "main", "matter.DimmableLight", primary: true,
                [
                    trait("matter.OnOff", ["onOff": .bool(isOn)]),
                    trait("matter.LevelControl", ["currentLevel": .int(100)]),
                ])
        ]
    case 1:
        types = [
            type(
                "temperature", "matter.TemperatureSensor", primary: true,
                [trait("matter.TemperatureMeasurement", ["measuredValue": .int(Int64(2000 + index % 100))])]),
            type(
                "humidity", "matter.HumiditySensor", primary: false,
                [trait("matter.RelativeHumidityMeasurement", ["measuredValue": .int(4500)])]),
        ]
    default:
        types = [
            type(
                "main", "matter.ContactSensor", primary: true,
                [trait("matter.BooleanState", ["stateValue": .bool(true)])])
        ]
    }
    return try Device(id: try DeviceID("bench-\(index)"), name: "Bench device \(index)", deviceTypes: types)
}
