import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeMatterInteraction
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// A bridge's endpoints in the node, in datagrams: the aggregator's and the root's PartsList, a
/// command a bridged endpoint hands on (answered at once), Identify answered here, a refused command
/// not handed on, and endpoints that come, change and go while a controller is subscribed.
@Suite("Matter node: bridged endpoints")
struct MatterNodeBridgedEndpointTests {
    static let onOff: UInt32 = 0x0006

    /// A bridged light on `id`: Identify, On/Off (Off/On/Toggle forwarded, OffWithEffect failing).
    static func light(_ id: UInt16, isOn: Bool, isReachable: Bool = true) -> BridgedEndpoint {
        BridgedEndpoint(
            id: id, deviceTypes: [DeviceTypeRevision(0x0100, revision: 3), DeviceTypeRevision(0x0013, revision: 3)],
            clusters: [
                BridgedEndpoint.Cluster(
                    ClusterDescription(id: 0x0003, revision: 5, accepted: [0x00, 0x40]),
                    values: [0: .unsigned(0), 1: .unsigned(0)], localWrites: [0]),
                BridgedEndpoint.Cluster(
                    ClusterDescription(id: onOff, revision: 6, featureMap: 1, accepted: [0, 1, 2, 0x40]),
                    values: [0: .bool(isOn)], failingCommands: [0x40]),
                BridgedEndpoint.Cluster(
                    ClusterDescription(id: 0x0039, revision: 5),
                    values: [0x05: .string("Hall light"), 0x11: .bool(isReachable), 0x12: .string("0123")]),
            ])
    }

    static func aggregator(parts: [UInt16]) -> BridgedEndpoint {
        BridgedEndpoint(id: 1, deviceTypes: [DeviceTypeRevision(0x000E, revision: 2)], parts: parts)
    }

    static func paired() throws -> (NodeHarness, Commissioner) {
        var harness = try NodeHarness(endpoints: [aggregator(parts: [2]), light(2, isOn: false)])
        var commissioner = Commissioner()
        _ = try MatterNodeTests.pase(&harness, &commissioner)
        return (harness, commissioner)
    }

    static func read(
        _ path: AttributePath, _ harness: inout NodeHarness, _ commissioner: inout Commissioner, exchange: UInt16
    ) throws -> [AttributeReport] {
        let request = ReadRequest(attributeRequests: [path], isFabricFiltered: false)
        let reply = try #require(
            try commissioner.interact(.readRequest, request.encoded, exchange: exchange, &harness).only)
        return try ReportData(decoding: reply.payload).attributeReports
    }

    static func value(_ reports: [AttributeReport]) -> TLVValue? {
        guard case .data(let data)? = reports.first else { return nil }
        return data.data
    }

    static func invoke(
        _ command: UInt32, cluster: UInt32, fields: TLVValue?, _ harness: inout NodeHarness,
        _ commissioner: inout Commissioner, exchange: UInt16
    ) throws -> (effects: [MatterNode<String>.Effect], status: TLVValue?) {
        let request = InvokeRequest(
            invokeRequests: [
                CommandData(path: CommandPath(endpoint: 2, cluster: cluster, command: command), fields: fields)
            ])
        let effects = try commissioner.send(.invokeRequest, request.encoded, exchange: exchange, &harness)
        return (effects, try status(of: commissioner.open(effects)))
    }

    /// The status of the one InvokeResponse among `replies`: InvokeResponses[0].Status, a
    /// CommandStatusIB {0 path, 1 StatusIB {0 status}}.
    static func status(of replies: [Message], exchange: UInt16? = nil) throws -> TLVValue? {
        let reply = try #require(
            replies.first {
                $0.protocolHeader.opcode == InteractionModelOpcode.invokeResponse.rawValue
                    && (exchange ?? $0.protocolHeader.exchangeID) == $0.protocolHeader.exchangeID
            })
        guard case .array(let responses)? = try TLVElement(decoding: reply.payload).value[1] else { return nil }
        return responses.first?[1]?[1]?[0]
    }

    static func forwarded(_ effects: [MatterNode<String>.Effect]) -> [EndpointRequest] {
        effects.compactMap {
            if case .forwarded(let request) = $0 { return request }
            return nil
        }
    }

    @Test("the aggregator lists the bridged endpoints; the root lists every endpoint; a leaf lists none")
    func partsLists() throws {
        var (harness, commissioner) = try Self.paired()
        let root = try Self.read(
            AttributePath(endpoint: 0, cluster: 0x001D, attribute: 3), &harness, &commissioner, exchange: 1)
        #expect(Self.value(root) == .array([.unsigned(1), .unsigned(2)]))
        let aggregator = try Self.read(
            AttributePath(endpoint: 1, cluster: 0x001D, attribute: 3), &harness, &commissioner, exchange: 2)
        #expect(Self.value(aggregator) == .array([.unsigned(2)]))
        let types = try Self.read(
            AttributePath(endpoint: 1, cluster: 0x001D, attribute: 0), &harness, &commissioner, exchange: 3)
        #expect(Self.value(types) == .array([.contextStructure([0: .unsigned(0x0E), 1: .unsigned(2)])]))
        let leaf = try Self.read(
            AttributePath(endpoint: 2, cluster: 0x001D, attribute: 3), &harness, &commissioner, exchange: 4)
        #expect(Self.value(leaf) == .array([]))
    }

    @Test("a command the device carries out is answered SUCCESS and handed on; the value waits for the device")
    func forwardedCommand() throws {
        var (harness, commissioner) = try Self.paired()
        let request = InvokeRequest(
            invokeRequests: [CommandData(path: CommandPath(endpoint: 2, cluster: Self.onOff, command: 2), fields: nil)])
        let effects = try commissioner.send(.invokeRequest, request.encoded, exchange: 5, &harness)
        let handed = Self.forwarded(effects)
        #expect(handed.map(\.action) == [.invoke(command: 2, fields: .structure([]))] && handed.first?.token != nil)
        #expect(try commissioner.open(effects).isEmpty, "the answer waits for the device's")
        let answered = harness.node.completeInvoke(
            try #require(handed.first?.token), status: .success, now: harness.now)
        #expect(try Self.status(of: commissioner.open(answered)) == .unsigned(0))
        let state = try Self.read(
            AttributePath(endpoint: 2, cluster: Self.onOff, attribute: 0), &harness, &commissioner, exchange: 6)
        #expect(Self.value(state) == .bool(false), "unchanged until the device echoes")

        let identify = try Self.invoke(
            0, cluster: 0x0003, fields: .structure([TLVElement(tag: .context(0), value: .unsigned(5))]), &harness,
            &commissioner, exchange: 7)
        #expect(identify.status == .unsigned(0) && Self.forwarded(identify.effects).isEmpty, "Identify is the bridge's")
        let time = try Self.read(
            AttributePath(endpoint: 2, cluster: 0x0003, attribute: 0), &harness, &commissioner, exchange: 8)
        #expect(Self.value(time) == .unsigned(5))

        let refused = try Self.invoke(
            0x40, cluster: Self.onOff, fields: .structure([]), &harness, &commissioner, exchange: 9)
        #expect(refused.status == .unsigned(UInt64(StatusCode.failure.rawValue)))
        #expect(Self.forwarded(refused.effects).isEmpty, "a failing command is not handed on")
        let unknown = try Self.invoke(0x41, cluster: Self.onOff, fields: nil, &harness, &commissioner, exchange: 10)
        #expect(unknown.status == .unsigned(UInt64(StatusCode.unsupportedCommand.rawValue)))
    }

    @Test("endpoints replaced live: a change moves only its cluster's version; one added and one removed")
    func replaced() throws {
        var (harness, _) = try Self.paired()
        let model = { harness.node.dataModel }
        let onOffVersion = try #require(model().dataVersion(endpoint: 2, cluster: Self.onOff))
        let identifyVersion = try #require(model().dataVersion(endpoint: 2, cluster: 0x0003))
        let rootVersion = try #require(model().dataVersion(endpoint: 0, cluster: 0x001D))

        _ = harness.node.replace([Self.light(2, isOn: true)], removing: [], now: harness.now)
        #expect(model().dataVersion(endpoint: 2, cluster: Self.onOff) == onOffVersion &+ 1)
        #expect(model().dataVersion(endpoint: 2, cluster: 0x0003) == identifyVersion)
        #expect(model().dataVersion(endpoint: 0, cluster: 0x001D) == rootVersion, "no structural change")

        _ = harness.node.replace(
            [Self.aggregator(parts: [3]), Self.light(3, isOn: true)], removing: [2], now: harness.now)
        #expect(model().endpoints.map(\.id) == [1, 3])
        #expect(model().root.information.partsList == [1, 3])
        #expect(model().dataVersion(endpoint: 0, cluster: 0x001D) == rootVersion &+ 1)
        #expect(model().dataVersion(endpoint: 2, cluster: Self.onOff) == nil)
        let everything = RootEndpoint.FabricAccess(accessingFabricIndex: 0, isFabricFiltered: false)
        let gone = model().read(
            ConcreteAttributePath(endpoint: 2, cluster: Self.onOff, attribute: 0), fabric: everything)
        #expect(gone == .failure(.unsupportedEndpoint))
        let added = model().read(
            ConcreteAttributePath(endpoint: 3, cluster: Self.onOff, attribute: 0), fabric: everything)
        #expect(added == .success(.bool(true)))
    }

    @Test("a subscriber to everything hears a new endpoint and the root's PartsList after the minimum interval")
    func subscribedToStructure() throws {
        var (harness, commissioner) = try Self.paired()
        let request = SubscribeRequest(
            keepSubscriptions: false, minIntervalFloorSeconds: 1, maxIntervalCeilingSeconds: 60,
            attributeRequests: [AttributePath(endpoint: nil, cluster: nil, attribute: nil)], isFabricFiltered: true)
        var priming = try commissioner.interact(.subscribeRequest, request.encoded, exchange: 11, &harness)
        // The priming report comes in chunks; each one answered until the SubscribeResponse.
        for _ in 0..<64 {
            let reply = try #require(priming.only)
            guard reply.protocolHeader.opcode == InteractionModelOpcode.reportData.rawValue else { break }
            priming = try commissioner.interact(
                .statusResponse, StatusResponse(.success).encoded, exchange: 11, ack: reply.header.messageCounter,
                &harness)
        }
        _ = harness.node.replace(
            [Self.aggregator(parts: [2, 3]), Self.light(3, isOn: true)], removing: [], now: harness.now)
        let report = try #require(try commissioner.open(harness.tick(after: .seconds(1))).reports.first)
        let paths = try ReportData(decoding: report.payload).attributeReports.compactMap(\.path.concrete)
        #expect(paths.contains { $0.endpoint == 0 && $0.cluster == 0x001D && $0.attribute == 3 }, "\(paths)")
        #expect(paths.contains { $0.endpoint == 1 && $0.cluster == 0x001D && $0.attribute == 3 }, "\(paths)")
        #expect(paths.contains { $0.endpoint == 3 && $0.cluster == Self.onOff && $0.attribute == 0 }, "\(paths)")
        #expect(!paths.contains { $0.endpoint == 2 }, "endpoint 2 did not change: \(paths)")
    }

    @Test("Reachable flipping is the ReachableChanged event, once per flip; the same value again is none")
    func reachableChanged() throws {
        var (harness, commissioner) = try Self.paired()
        func events(exchange: UInt16) throws -> [TLVValue] {
            let read = ReadRequest(
                attributeRequests: [], eventRequests: [EventPath(endpoint: 2, cluster: 0x0039)], isFabricFiltered: false
            )
            let reply = try #require(
                try commissioner.interact(.readRequest, read.encoded, exchange: exchange, &harness).only)
            // ReportData: 2 EventReports[].1 EventData {0 path, 1 number, 2 priority, 7 data}.
            guard case .array(let reports)? = try TLVElement(decoding: reply.payload).value[2] else { return [] }
            return reports.compactMap { $0[1] }
        }
        #expect(try events(exchange: 20).isEmpty, "none at start")
        _ = harness.node.replace([Self.light(2, isOn: false, isReachable: false)], removing: [], now: harness.now)
        _ = harness.node.replace([Self.light(2, isOn: true, isReachable: false)], removing: [], now: harness.now)
        _ = harness.node.replace([Self.light(2, isOn: true, isReachable: true)], removing: [], now: harness.now)
        let recorded = try events(exchange: 21)
        #expect(recorded.count == 2, "\(recorded)")
        #expect(recorded.first?[0]?[2] == .unsigned(0x39) && recorded.first?[0]?[3] == .unsigned(3))
        #expect(recorded.first?[2] == .unsigned(1), "INFO")
        #expect(recorded.map { $0[7]?[0] } == [.bool(false), .bool(true)])
    }

    @Test("1 000 bridged endpoints: a wildcard read brings every one back in chunks; a change reports that alone")
    func thousandEndpoints() throws {
        let ids = (2...1001).map { UInt16($0) }
        var harness = try NodeHarness(
            endpoints: [Self.aggregator(parts: ids)] + ids.map { Self.light($0, isOn: false) })
        var commissioner = Commissioner()
        _ = try MatterNodeTests.pase(&harness, &commissioner)
        let request = SubscribeRequest(
            keepSubscriptions: false, minIntervalFloorSeconds: 1, maxIntervalCeilingSeconds: 60,
            attributeRequests: [AttributePath(endpoint: nil, cluster: Self.onOff, attribute: 0)], isFabricFiltered: true
        )
        var replies = try commissioner.interact(.subscribeRequest, request.encoded, exchange: 30, &harness)
        var seen = Set<UInt16>()
        var chunks = 0
        for _ in 0..<2_000 {
            let reply = try #require(replies.only)
            guard reply.protocolHeader.opcode == InteractionModelOpcode.reportData.rawValue else { break }
            chunks += 1
            for report in try ReportData(decoding: reply.payload).attributeReports {
                if let endpoint = report.path.concrete?.endpoint { seen.insert(endpoint) }
            }
            replies = try commissioner.interact(
                .statusResponse, StatusResponse(.success).encoded, exchange: 30, ack: reply.header.messageCounter,
                &harness)
        }
        #expect(seen == Set(ids), "\(seen.count) of \(ids.count) endpoints primed")
        #expect(chunks > 1, "1 000 values do not fit one message")
        _ = harness.node.replace([Self.light(500, isOn: true)], removing: [], now: harness.now)
        let report = try #require(try commissioner.open(harness.tick(after: .seconds(1))).reports.only)
        let paths = try ReportData(decoding: report.payload).attributeReports.compactMap(\.path.concrete)
        #expect(paths == [ConcreteAttributePath(endpoint: 500, cluster: Self.onOff, attribute: 0)])
        _ = try commissioner.interact(
            .statusResponse, StatusResponse(.success).encoded, exchange: report.protocolHeader.exchangeID,
            ack: report.header.messageCounter, initiator: false, &harness)

        // More changed clusters than a request may name paths (32): every one is reported.
        let many = (600..<640).map { Self.light(UInt16($0), isOn: true) }
        _ = harness.node.replace(many, removing: [], now: harness.now)
        let burst = try #require(try commissioner.open(harness.tick(after: .seconds(1))).reports.first)
        let burstPaths = try ReportData(decoding: burst.payload).attributeReports.compactMap(\.path.concrete)
        #expect(Set(burstPaths.map(\.endpoint)) == Set((600..<640).map { UInt16($0) }), "\(burstPaths.count) paths")
    }

    @Test("a command's answer waits for the device's: its refusal is the status, its silence SUCCESS at the deadline")
    func deferredAnswers() throws {
        var (harness, commissioner) = try Self.paired()
        func toggle(exchange: UInt16) throws -> (effects: [MatterNode<String>.Effect], token: UInt64) {
            let request = InvokeRequest(
                invokeRequests: [
                    CommandData(path: CommandPath(endpoint: 2, cluster: Self.onOff, command: 2), fields: nil)
                ])
            let effects = try commissioner.send(.invokeRequest, request.encoded, exchange: exchange, &harness)
            return (effects, try #require(Self.forwarded(effects).first?.token))
        }
        let refused = try toggle(exchange: 40)
        let answer = harness.node.completeInvoke(refused.token, status: .constraintError, now: harness.now)
        #expect(
            try Self.status(of: commissioner.open(answer)) == .unsigned(UInt64(StatusCode.constraintError.rawValue)))
        #expect(harness.node.completeInvoke(refused.token, status: .success, now: harness.now).isEmpty, "answered once")

        let silent = try toggle(exchange: 41)
        let waiting = try commissioner.open(harness.tick(after: .milliseconds(1000)))
        #expect(
            !waiting.contains {
                $0.protocolHeader.opcode == InteractionModelOpcode.invokeResponse.rawValue
                    && $0.protocolHeader.exchangeID == 41
            },
            "still waiting at 1 s")
        let late = try commissioner.open(harness.tick(after: .milliseconds(600)))
        #expect(try Self.status(of: late, exchange: 41) == .unsigned(0), "SUCCESS at the deadline")
        #expect(
            harness.node.completeInvoke(silent.token, status: .failure, now: harness.now).isEmpty, "too late: dropped")
    }
}
