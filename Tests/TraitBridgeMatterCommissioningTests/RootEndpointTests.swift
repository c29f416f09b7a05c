import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterInteraction

/// Reads and invokes by id: the root endpoint's attributes, the global ones, unknown ids, bad fields.
@Suite struct RootEndpointTests {
    let start = ContinuousClock.now
    let access = RootEndpoint.FabricAccess(accessingFabricIndex: 0, isFabricFiltered: true)

    @Test(arguments: [
        (UInt16(0), UInt32(0x0006), UInt32(0), StatusCode.unsupportedCluster),
        (0, 0x0028, 0x0099, .unsupportedAttribute),
        (0, 0x0031, 0x0003, .unsupportedAttribute),  // ConnectMaxTimeSeconds: Wi-Fi/Thread only
        (0, 0x0028, 0xFFFA, .unsupportedAttribute),  // no EventList
        (1, 0x0028, 0x0000, .unsupportedEndpoint),
    ])
    func `unknown paths read as their IM status`(
        endpoint: UInt16, cluster: UInt32, attribute: UInt32, status: StatusCode
    ) {
        let root = RootEndpoint()
        #expect(
            root.read(endpoint: endpoint, cluster: cluster, attribute: attribute, fabric: access) == .failure(status))
    }

    @Test func `every cluster serves its attributes and the global ones`() throws {
        let root = RootEndpoint()
        for cluster in RootEndpoint.clusters {
            let list = try root.read(endpoint: 0, cluster: cluster, attribute: 0xFFFB, fabric: access).get()
            guard case .array(let ids) = list else {
                Issue.record("AttributeList of \(cluster) is \(list)")
                continue
            }
            #expect(ids.count == Set(ids.map(\.description)).count)
            for case .unsigned(let id) in ids {
                #expect(
                    (try? root.read(endpoint: 0, cluster: cluster, attribute: UInt32(id), fabric: access).get()) != nil,
                    "cluster \(cluster) attribute \(id)")
            }
            #expect(root.attributeIDs(cluster: cluster)?.map { TLVValue.unsigned(UInt64($0)) } == ids)
        }
    }

    @Test func `the commissioning attributes the SDK reads first`() throws {
        let root = RootEndpoint()
        func read(_ cluster: UInt32, _ attribute: UInt32) throws -> TLVValue {
            try root.read(endpoint: 0, cluster: cluster, attribute: attribute, fabric: access).get()
        }
        #expect(try read(0x30, 1) == .contextStructure([0: .unsigned(60), 1: .unsigned(900)]))
        #expect(try read(0x30, 2) == .unsigned(2))
        #expect(try read(0x30, 3) == .unsigned(2))
        #expect(try read(0x30, 4) == .bool(true))
        #expect(try read(0x30, 0xFFF9) == .array([.unsigned(0), .unsigned(2), .unsigned(4)]))
        #expect(try read(0x30, 0xFFF8) == .array([.unsigned(1), .unsigned(3), .unsigned(5)]))
        #expect(try read(0x31, 0xFFFC) == .unsigned(4))
        #expect(try read(0x1D, 0) == .array([.contextStructure([0: .unsigned(0x16), 1: .unsigned(3)])]))
        #expect(try read(0x28, 0x13) == .contextStructure([0: .unsigned(3), 1: .unsigned(3)]))
        #expect(try read(0x3E, 5) == .unsigned(0))
        #expect(try read(0x3E, 2) == .unsigned(5))
    }

    @Test(arguments: [
        (
            UInt32(0x30), UInt32(0x00), TLVValue.contextStructure([0: .unsigned(70_000), 1: .unsigned(0)]),
            StatusCode.constraintError
        ),
        (0x30, 0x00, .contextStructure([0: .unsigned(60)]), .invalidCommand),
        (0x30, 0x00, .unsigned(1), .invalidCommand),
        (0x30, 0x02, .contextStructure([0: .unsigned(300), 1: .string("XX"), 2: .unsigned(0)]), .constraintError),
        (0x30, 0x02, .contextStructure([0: .unsigned(0), 1: .string("XXX"), 2: .unsigned(0)]), .constraintError),
        (
            0x30, 0x02, .contextStructure([0: .unsigned(0), 1: .octets([0x58, 0x58]), 2: .unsigned(0)]), .invalidCommand
        ),
        (0x3E, 0x00, .contextStructure([0: .octets([UInt8](repeating: 0, count: 31))]), .invalidCommand),
        (0x3E, 0x00, .contextStructure([0: .octets([UInt8](repeating: 0, count: 33))]), .constraintError),
        (0x3E, 0x02, .contextStructure([0: .unsigned(3)]), .invalidCommand),
        (0x3E, 0x02, .contextStructure([0: .signed(1)]), .invalidCommand),
        (0x3E, 0x04, .contextStructure([0: .string("nonce")]), .invalidCommand),
        (0x3E, 0x06, addNOC(noc: 401, ipk: 16, vendor: 0xFFF1), .invalidCommand),
        (0x3E, 0x06, addNOC(noc: 10, ipk: 15, vendor: 0xFFF1), .invalidCommand),
        (0x3E, 0x06, addNOC(noc: 10, ipk: 16, vendor: 0), .invalidCommand),
        (0x3E, 0x06, addNOC(noc: 10, ipk: 16, vendor: 0xFFF1), .failsafeRequired),
        (0x3E, 0x09, .contextStructure([0: .string(String(repeating: "x", count: 33))]), .invalidCommand),
        (0x3E, 0x0A, .contextStructure([0: .unsigned(0)]), .constraintError),
        (0x3E, 0x07, .contextStructure([:]), .invalidCommand),
        (0x3E, 0x07, .contextStructure([0: .octets([UInt8](repeating: 0, count: 10))]), .failsafeRequired),
        (0x3E, 0x0C, .contextStructure([:]), .unsupportedCommand),
        (0x06, 0x00, .contextStructure([:]), .unsupportedCluster),
    ])
    func `malformed fields answer with a status`(
        cluster: UInt32, command: UInt32, fields: TLVValue, status: StatusCode
    ) {
        var root = RootEndpoint()
        let result = root.invoke(
            endpoint: 0, cluster: cluster, command: command, fields: fields, context: Session.pase(at: start))
        #expect(result == .status(status))
    }

    @Test func `an unknown regulatory config is a ValueOutsideRange response`() {
        var root = RootEndpoint()
        let result = root.invoke(
            endpoint: 0, cluster: 0x30, command: 0x02,
            fields: .contextStructure([0: .unsigned(3), 1: .string("XX"), 2: .unsigned(9)]),
            context: Session.pase(at: start))
        #expect(result == .response(commandID: 3, fields: .contextStructure([0: .unsigned(1), 1: .string("")])))
        #expect(root.state.breadcrumb == 0)
    }

    @Test func `no shape of fields traps any command`() {
        let shapes: [TLVValue] = [
            .null, .unsigned(UInt64.max), .array([]), .contextStructure([:]),
            .contextStructure([0: .unsigned(UInt64.max), 1: .signed(-1), 2: .octets([]), 3: .string(""), 4: .null]),
            .contextStructure([0: .octets([UInt8](repeating: 0xFF, count: 32)), 1: .bool(true), 2: .octets([1])]),
            .contextStructure([
                0: .octets([0x15, 0x18]), 1: .octets([]), 2: .octets([UInt8](repeating: 0, count: 16)),
                3: .unsigned(1), 4: .unsigned(0xFFF1),
            ]),
        ]
        var root = RootEndpoint()
        _ = root.invoke(
            endpoint: 0, cluster: 0x30, command: 0, fields: .contextStructure([0: .unsigned(60), 1: .unsigned(0)]),
            context: Session.pase(at: start))
        for cluster: UInt32 in [0x30, 0x3E] {
            for command: UInt32 in 0...0x0F {
                for fields in shapes {
                    _ = root.invoke(
                        endpoint: 0, cluster: cluster, command: command, fields: fields,
                        context: Session.pase(at: start))
                }
            }
        }
        #expect(root.state.fabrics.isEmpty)
    }

    @Test func `fabric-scoped lists are filtered by the accessing fabric`() throws {
        let root = RootEndpoint()
        let other = RootEndpoint.FabricAccess(accessingFabricIndex: 3, isFabricFiltered: true)
        #expect(try root.read(endpoint: 0, cluster: 0x3E, attribute: 1, fabric: other).get() == .array([]))
        #expect(try root.read(endpoint: 0, cluster: 0x1F, attribute: 0, fabric: other).get() == .array([]))
    }

    /// AddNOC fields with a NOC of `noc` bytes, an IPK of `ipk` bytes and AdminVendorId `vendor`.
    static func addNOC(noc: Int, ipk: Int, vendor: UInt64) -> TLVValue {
        .contextStructure([
            0: .octets([UInt8](repeating: 0, count: noc)), 2: .octets([UInt8](repeating: 0, count: ipk)),
            3: .unsigned(1), 4: .unsigned(vendor),
        ])
    }
}

/// Writes to the root endpoint.
@Suite struct RootEndpointWriteTests {
    @Test(arguments: [
        (UInt32(0x28), UInt32(0x05), TLVValue.string("Kitchen bridge"), StatusCode.success),
        (0x28, 0x05, .string(String(repeating: "x", count: 33)), .constraintError),
        (0x28, 0x06, .string("DE"), .success),
        (0x28, 0x06, .string("DEU"), .constraintError),
        (0x30, 0x00, .unsigned(42), .success),
        (0x30, 0x00, .string("42"), .constraintError),
        (0x28, 0x02, .unsigned(1), .unsupportedWrite),
        (0x28, 0x99, .unsigned(1), .unsupportedAttribute),
        (0x06, 0x00, .bool(true), .unsupportedCluster),
    ])
    func `writable attributes take values, others refuse`(
        cluster: UInt32, attribute: UInt32, value: TLVValue, status: StatusCode
    ) throws {
        var root = RootEndpoint()
        #expect(root.write(endpoint: 0, cluster: cluster, attribute: attribute, value: value) == status)
        if status == .success {
            let access = RootEndpoint.FabricAccess(accessingFabricIndex: 0, isFabricFiltered: true)
            #expect(try root.read(endpoint: 0, cluster: cluster, attribute: attribute, fabric: access).get() == value)
        }
    }
}
