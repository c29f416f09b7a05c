public import TraitBridgeMatterCommissioning
public import TraitBridgeMatterSecureChannel

/// What of a node must survive a restart: the committed commissioning state (fabrics, ACL, regulatory
/// config), the CASE resumption records of its committed fabrics, and Basic Information's writable
/// NodeLabel and Location. It exists so the node's owner keeps one value and writes it whenever it
/// changes: a restart then finds the fabrics, resumes the controllers' sessions without a full CASE
/// (as connectedhomeip's `DefaultSessionResumptionStorage` keeps its records in the device's key-value
/// store: resumption ID → fabric and peer node, shared secret, CATs) and answers with the labels the
/// controllers wrote.
///
/// It holds secrets (operational keys, IPKs, the resumption records' shared secrets): its description
/// shows counts only.
public struct NodeSnapshot: Sendable, Hashable, CustomStringConvertible {
    public var commissioning: CommissioningSnapshot
    /// Least recently used first, each of a fabric in ``commissioning``.
    public var resumptions: [ResumptionStore.Record]
    /// NodeLabel (0x28/5) and Location (0x28/6); nil: the ``DeviceInformation``'s own.
    public var nodeLabel: String?
    public var location: String?

    public init(
        commissioning: CommissioningSnapshot = CommissioningSnapshot(), resumptions: [ResumptionStore.Record] = [],
        nodeLabel: String? = nil, location: String? = nil
    ) {
        self.commissioning = commissioning
        self.resumptions = resumptions
        self.nodeLabel = nodeLabel
        self.location = location
    }

    public var description: String {
        "NodeSnapshot(\(commissioning), \(resumptions.count) resumption records)"
    }
    /// `information` with the kept NodeLabel and Location in place of its own (those it has when none are kept).
    public func applied(to information: DeviceInformation) -> DeviceInformation {
        var information = information
        if let nodeLabel { information.nodeLabel = nodeLabel }
        if let location { information.location = location }
        return information
    }
}

extension MatterNode {
    /// What a restart must find again. Resumption records are those of committed fabrics whose NOC is
    /// not being updated: a record made under a NOC the fail-safe may still take back is not kept.
    public var snapshot: NodeSnapshot {
        let state = dataModel.root.state
        let commissioning = state.snapshot
        var kept = Set(commissioning.fabrics.map(\.index))
        if let updating = state.failSafe?.fabricBeforeUpdate?.index { kept.remove(updating) }
        return NodeSnapshot(
            commissioning: commissioning,
            resumptions: caseResponder.resumptions.records.filter { kept.contains($0.fabricIndex) },
            nodeLabel: dataModel.root.information.nodeLabel, location: dataModel.root.information.location)
    }

    /// Holds the resumption records a restart kept (least recent first); those of a fabric the node does
    /// not hold are left out. The node's fabrics must be in place first (they are from its data model).
    public mutating func restoreResumptions(_ records: [ResumptionStore.Record]) {
        caseResponder.restoreResumptions(records)
    }

    /// The resumption records held now, least recent first (tests and diagnostics; never printed whole).
    public var resumptionRecords: [ResumptionStore.Record] { caseResponder.resumptions.records }
}
