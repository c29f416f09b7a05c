import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeMatterInteraction
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// A bridged lock and contact sensor whose values change: Door Lock's LockOperation (and DoorStateChange),
/// Boolean State's StateChange, as a controller's event read finds them; none at start, none for the same
/// value again, none for a value that is no operation.
@Suite("Matter node: events from bridged values")
struct MatterNodeValueEventsTests {
    static func lock(_ id: UInt16, state: UInt64, door: UInt64 = 1) -> BridgedEndpoint {
        BridgedEndpoint(
            id: id, deviceTypes: [DeviceTypeRevision(0x000A, revision: 3), DeviceTypeRevision(0x0013, revision: 3)],
            clusters: [
                BridgedEndpoint.Cluster(
                    ClusterDescription(id: 0x0101, revision: 7, featureMap: 0x20, accepted: [0, 1]),
                    values: [0: .unsigned(state), 1: .unsigned(0), 2: .bool(true), 3: .unsigned(door)]),
                BridgedEndpoint.Cluster(
                    ClusterDescription(id: 0x0039, revision: 5),
                    values: [0x05: .string("Front door"), 0x11: .bool(true), 0x12: .string("0456")]),
            ])
    }

    static func contact(_ id: UInt16, closed: Bool) -> BridgedEndpoint {
        BridgedEndpoint(
            id: id, deviceTypes: [DeviceTypeRevision(0x0015, revision: 2), DeviceTypeRevision(0x0013, revision: 3)],
            clusters: [
                BridgedEndpoint.Cluster(ClusterDescription(id: 0x0045, revision: 1), values: [0: .bool(closed)]),
                BridgedEndpoint.Cluster(
                    ClusterDescription(id: 0x0039, revision: 5),
                    values: [0x05: .string("Back door"), 0x11: .bool(true), 0x12: .string("0789")]),
            ])
    }

    /// The events of `cluster` on every endpoint, as EventData structures {0 path, 1 number, 2 priority, 7 data}.
    static func events(
        _ cluster: UInt32, _ harness: inout NodeHarness, _ commissioner: inout Commissioner, exchange: UInt16
    ) throws -> [TLVValue] {
        let read = ReadRequest(
            attributeRequests: [], eventRequests: [EventPath(endpoint: nil, cluster: cluster)], isFabricFiltered: false)
        let reply = try #require(
            try commissioner.interact(.readRequest, read.encoded, exchange: exchange, &harness).only)
        guard case .array(let reports)? = try TLVElement(decoding: reply.payload).value[2] else { return [] }
        return reports.compactMap { $0[1] }
    }

    @Test("locked → unlocked → unlocked → locked: two LockOperations (Unlock, Lock), source Unspecified, nulls")
    func lockOperation() throws {
        var harness = try NodeHarness(
            endpoints: [
                MatterNodeBridgedEndpointTests.aggregator(parts: [2, 3]), Self.lock(2, state: 1),
                Self.contact(3, closed: true),
            ])
        var commissioner = Commissioner()
        _ = try MatterNodeTests.pase(&harness, &commissioner)
        #expect(try Self.events(0x0101, &harness, &commissioner, exchange: 40).isEmpty, "none at start")
        for state: UInt64 in [2, 2, 0, 1] {
            _ = harness.node.replace([Self.lock(2, state: state)], removing: [], now: harness.now)
        }
        let recorded = try Self.events(0x0101, &harness, &commissioner, exchange: 41)
        // 0 (NotFullyLocked) is no operation: Unlock (2), then Lock (1) from 0.
        #expect(recorded.count == 2, "\(recorded)")
        #expect(recorded.allSatisfy { $0[0]?[3] == .unsigned(2) && $0[2] == .unsigned(0) }, "LockOperation, DEBUG")
        #expect(recorded.map { $0[7]?[0] } == [.unsigned(1), .unsigned(0)], "Unlock, then Lock")
        #expect(recorded.first?[7]?[1] == .unsigned(0), "OperationSource Unspecified")
        #expect(recorded.first?[7]?[2] == .null && recorded.first?[7]?[4] == .null, "UserIndex, SourceNode null")

        _ = harness.node.replace([Self.lock(2, state: 1, door: 0)], removing: [], now: harness.now)
        let door = try Self.events(0x0101, &harness, &commissioner, exchange: 42).filter { $0[0]?[3] == .unsigned(1) }
        #expect(door.map { $0[7]?[0] } == [.unsigned(0)], "DoorStateChange: open")

        _ = harness.node.replace([Self.contact(3, closed: false)], removing: [], now: harness.now)
        _ = harness.node.replace([Self.contact(3, closed: false)], removing: [], now: harness.now)
        let contact = try Self.events(0x0045, &harness, &commissioner, exchange: 43)
        #expect(contact.count == 1 && contact.first?[2] == .unsigned(1), "one StateChange, INFO: \(contact)")
        #expect(contact.first?[7]?[0] == .bool(false))
    }
}
