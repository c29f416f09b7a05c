import Foundation
import Logging
import Synchronization
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// The endpoints of a verified session: the accessory database, characteristic reads and writes
/// (a write is a unified command: checked against the catalog, sent to the device, confirmed by
/// its echo), event subscriptions and the pairings.
extension HomeKitBridge {
    func respondVerified(to request: HAPRequest, controller: String, connection: HAPConnection) async -> Reply {
        let json = "application/hap+json"
        switch (request.method, request.path) {
        case ("GET", "/accessories"):
            let database = shared.withLock { $0.database }
            return Reply(
                bytes: HAPResponse.http(
                    200, contentType: json,
                    body: HAPDocuments.accessories(database, graph: bridge.snapshot.graph)))
        case ("GET", "/characteristics"):
            let database = shared.withLock { $0.database }
            var subscribed: Set<HAPDatabase.CharacteristicKey> = []
            let pairs = HAPDocuments.parseIDs(request.query["id"] ?? "")
            for (aid, iid) in pairs where await connection.isSubscribed(.init(aid: aid, iid: iid)) {
                subscribed.insert(.init(aid: aid, iid: iid))
            }
            let (status, body) = HAPDocuments.read(
                ids: request.query["id"] ?? "", database: database, graph: bridge.snapshot.graph,
                subscribed: { subscribed.contains(.init(aid: $0, iid: $1)) })
            return Reply(bytes: HAPResponse.http(status, contentType: json, body: body))
        case ("PUT", "/characteristics"):
            guard let writes = HAPDocuments.writes(request.body) else {
                return Reply(
                    bytes: HAPResponse.http(
                        400, contentType: json,
                        body: HAPDocuments.statusBody(HAPStatus.invalidValue.rawValue)))
            }
            let statuses = await write(writes, connection: connection)
            guard statuses.contains(where: { $0 != .success }) else { return Reply(bytes: HAPResponse.http(204)) }
            let entries: [JSONValue] = zip(writes, statuses).map { write, status in
                .object([
                    "aid": .int(Int64(write.aid)), "iid": .int(Int64(write.iid)),
                    "status": .int(Int64(status.rawValue)),
                ])
            }
            return Reply(
                bytes: HAPResponse.http(
                    207, contentType: json,
                    body: JSONValue.object(["characteristics": .array(entries)]).serializedBytes()))
        case ("POST", "/pairings"):
            guard let tlv = try? TLV8(decoding: request.body) else { return Reply(bytes: HAPResponse.http(400)) }
            let answer = shared.withLock { $0.pairing.pairings(tlv, requester: controller) }
            if answer.changed {
                persist(identity)
                wakeAnnouncement()
            }
            for removed in answer.removed { logger.notice("HomeKit: the pairing of controller \(removed) was removed") }
            return Reply(
                bytes: HAPResponse.http(200, contentType: "application/pairing+tlv8", body: answer.tlv.encoded),
                closeControllers: answer.removed)
        default:
            return Reply(bytes: HAPResponse.http(404))
        }
    }

    /// Each write's status, in order; value writes run at once (each waits for its device's echo).
    func write(_ writes: [HAPDocuments.Write], connection: HAPConnection) async -> [HAPStatus] {
        let database = shared.withLock { $0.database }
        let state = bridge.snapshot
        var statuses = [HAPStatus](repeating: .success, count: writes.count)
        await withTaskGroup(of: (Int, HAPStatus).self) { group in
            for (index, write) in writes.enumerated() {
                guard let item = database.characteristic(aid: write.aid, iid: write.iid) else {
                    statuses[index] = .notFound
                    continue
                }
                if let events = write.events {
                    guard item.permissions.contains("ev") else {
                        statuses[index] = .notificationsUnsupported
                        continue
                    }
                    let current = try? HAPValues.read(item, in: state.graph).get()
                    let key = HAPDatabase.CharacteristicKey(aid: write.aid, iid: write.iid)
                    guard await connection.subscribe(key, events, current: current) else {
                        statuses[index] = .outOfResources
                        continue
                    }
                }
                guard let value = write.value else { continue }
                guard item.permissions.contains("pw") else {
                    statuses[index] = .readOnly
                    continue
                }
                group.addTask { (index, await self.write(value, to: item, catalog: state.catalog)) }
            }
            for await (index, status) in group { statuses[index] = status }
        }
        return statuses
    }

    private func write(_ value: JSON, to item: HAPCharacteristic, catalog: Catalog) async -> HAPStatus {
        switch item.source {
        case .identify:
            logger.notice("HomeKit: identify asked")
            return .success
        case .scene(let scene, let name):
            guard value.bool == true || value.int64 == 1 else { return .success }
            let answer = await bridge.request(
                "scene-run", payload: JSONValue.object(["scene": .string(scene.rawValue)]).serializedBytes())
            let status = (try? JSONDocument.parse(answer).root)?["status"]?.string
            logger.info("HomeKit: scene \(name) run: \(status ?? "no answer")")
            // Some actions ran ("partial": the rest were offline, said per action in the log): done.
            return status == "ok" || status == "partial" ? .success : .communicationFailure
        case .attribute(let device, let typeKey, let row):
            guard let trait = row.trait, let attribute = row.attribute else { return .readOnly }
            let metadata = catalog.trait(trait)?.attribute(named: attribute)?.metadata
            guard let modelValue = HAPValues.modelValue(value, item: item, row: row, metadata: metadata) else {
                return .invalidValue
            }
            let payload: JSONValue = [
                "deviceType": .string(typeKey), "trait": .string(trait.description), "attribute": .string(attribute),
                "value": modelValue.jsonValue,
            ]
            let answer = await bridge.command(device, payload: payload.serializedBytes())
            let root = try? JSONDocument.parse(answer).root
            switch root?["status"]?.string {
            case "confirmed", "assumed": return .success
            default:
                let code = root?["code"]?.string ?? "no answer"
                logger.info("HomeKit: a write to \(device) \(trait).\(attribute) failed: \(code)")
                switch code {
                case "valueOutOfRange", "invalidValue": return .invalidValue
                case "notSupported": return .readOnly
                default: return .communicationFailure
                }
            }
        case .constant, .statusFault:
            return .readOnly
        }
    }
}
