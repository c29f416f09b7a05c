internal import TraitBridgeMatterCodec
internal import TraitBridgeMatterCredentials

/// The attribute values of each root-endpoint cluster, computed from the state on every read, so a
/// read always reports what the last command did. Shapes per Matter Core §9.10, §11.1, §11.2, §11.9,
/// §11.10, §11.18 and the notes' §2.2; fabric-scoped structs carry FabricIndex as tag 0xFE.
extension RootEndpoint {
    /// The non-global attributes of `cluster` by id; empty for a cluster not served.
    func attributes(of cluster: UInt32, fabric: FabricAccess) -> [UInt32: TLVValue] {
        switch cluster {
        case ClusterID.descriptor: descriptor
        case ClusterID.accessControl: accessControl(fabric)
        case ClusterID.basicInformation: basicInformation
        case ClusterID.generalCommissioning: generalCommissioning
        case ClusterID.networkCommissioning: networkCommissioning
        case ClusterID.generalDiagnostics: generalDiagnostics
        case ClusterID.administratorCommissioning: administratorCommissioning
        case ClusterID.operationalCredentials: operationalCredentials(fabric)
        case ClusterID.groupKeyManagement: groupKeyManagement
        default: [:]
        }
    }

    private var descriptor: [UInt32: TLVValue] {
        [
            0x0000: .array([.contextStructure([0: .unsigned(0x0016), 1: .unsigned(3)])]),
            0x0001: .array(Self.clusters.map { .unsigned(UInt64($0)) }),
            0x0002: .array([]),
            0x0003: .array(information.partsList.map { .unsigned(UInt64($0)) }),
        ]
    }

    private var basicInformation: [UInt32: TLVValue] {
        var values: [UInt32: TLVValue] = [
            0x0000: .unsigned(18),
            0x0001: .string(information.vendorName),
            0x0002: .unsigned(UInt64(information.vendorID)),
            0x0003: .string(information.productName),
            0x0004: .unsigned(UInt64(information.productID)),
            0x0005: .string(information.nodeLabel),
            0x0006: .string(information.location),
            0x0007: .unsigned(UInt64(information.hardwareVersion)),
            0x0008: .string(information.hardwareVersionString),
            0x0009: .unsigned(UInt64(information.softwareVersion)),
            0x000A: .string(information.softwareVersionString),
            0x0012: .string(information.uniqueID),
            0x0013: .contextStructure([0: .unsigned(3), 1: .unsigned(3)]),
            0x0015: .unsigned(0x0104_0000),
            0x0016: .unsigned(1),
        ]
        if let serial = information.serialNumber { values[0x000F] = .string(serial) }
        return values
    }

    private var generalCommissioning: [UInt32: TLVValue] {
        [
            0x0000: .unsigned(state.breadcrumb),
            0x0001: .contextStructure([
                0: .unsigned(UInt64(CommissioningState.failSafeExpiryLength.components.seconds)),
                1: .unsigned(UInt64(CommissioningState.maxCumulativeFailSafe.components.seconds)),
            ]),
            0x0002: .unsigned(UInt64(state.regulatoryConfig.rawValue)),
            0x0003: .unsigned(UInt64(state.locationCapability.rawValue)),
            0x0004: .bool(true),
        ]
    }

    /// Ethernet: one network, connected; nothing to scan or connect.
    private var networkCommissioning: [UInt32: TLVValue] {
        [
            0x0000: .unsigned(1),
            0x0001: .array([.contextStructure([0: .octets(information.networkID), 1: .bool(true)])]),
            0x0004: .bool(true),
            0x0005: .null,
            0x0006: .null,
            0x0007: .null,
        ]
    }

    private func operationalCredentials(_ access: FabricAccess) -> [UInt32: TLVValue] {
        let visible = state.fabrics.filter { !access.isFabricFiltered || $0.index == access.accessingFabricIndex }
        let nocs: [TLVValue] = visible.map { fabric in
            // NOC and ICAC are fabric-sensitive: another fabric's entry shows its index only.
            guard fabric.index == access.accessingFabricIndex else {
                return .contextStructure([254: .unsigned(UInt64(fabric.index))])
            }
            return .contextStructure([
                1: .octets(fabric.chain.noc.tlv), 2: fabric.chain.icac.map { .octets($0.tlv) } ?? .null,
                254: .unsigned(UInt64(fabric.index)),
            ])
        }
        let fabrics: [TLVValue] = visible.map { fabric in
            .contextStructure([
                1: .octets(fabric.rootPublicKey), 2: .unsigned(UInt64(fabric.vendorID)),
                3: .unsigned(fabric.fabricID), 4: .unsigned(fabric.nodeID), 5: .string(fabric.label),
                254: .unsigned(UInt64(fabric.index)),
            ])
        }
        let roots = state.fabrics.map(\.chain.rcac.tlv) + (state.failSafe?.pendingRoot.map { [$0.tlv] } ?? [])
        let current = state.fabric(access.accessingFabricIndex) == nil ? 0 : access.accessingFabricIndex
        return [
            0x0000: .array(nocs),
            0x0001: .array(fabrics),
            0x0002: .unsigned(UInt64(CommissioningState.supportedFabrics)),
            0x0003: .unsigned(UInt64(state.fabrics.count)),
            // The SDK also lists the root AddTrustedRootCertificate staged.
            0x0004: .array(roots.map { .octets($0) }),
            0x0005: .unsigned(UInt64(current)),
        ]
    }

    private func accessControl(_ access: FabricAccess) -> [UInt32: TLVValue] {
        let entries = state.accessControl.filter {
            !access.isFabricFiltered || $0.fabricIndex == access.accessingFabricIndex
        }
        let acl = entries.map {
            CommissioningState.encoded($0, accessingFabricIndex: access.accessingFabricIndex)
        }
        return [
            0x0000: .array(acl), 0x0002: .unsigned(UInt64(CommissioningState.subjectsPerEntry)),
            0x0003: .unsigned(UInt64(CommissioningState.targetsPerEntry)),
            0x0004: .unsigned(UInt64(CommissioningState.entriesPerFabric)),
        ]
    }

    private var groupKeyManagement: [UInt32: TLVValue] {
        [0x0000: .array([]), 0x0001: .array([]), 0x0002: .unsigned(0), 0x0003: .unsigned(1)]
    }
}
