import TraitBridgeMatterCodec

/// The session-parameter-struct a PASE or CASE peer sends about itself (PBKDFParamRequest and
/// PBKDFParamResponse tag 5, Sigma1 and Sigma2): its MRP timing, for the retransmissions to it, and the
/// revisions it implements. It exists so both PASE messages read and write it one way. Every member is
/// optional; unknown members are ignored and members in any order are read, as connectedhomeip
/// `PairingSession::DecodeSessionParameters` does. Widths as in connectedhomeip `EncodeSessionParameters`.
public struct SessionParameters: Sendable, Hashable {
    /// Tag 1, SESSION_IDLE_INTERVAL: the retransmission interval to use while the sender is idle.
    public var idleIntervalMilliseconds: UInt32?
    /// Tag 2, SESSION_ACTIVE_INTERVAL: the retransmission interval while it is active.
    public var activeIntervalMilliseconds: UInt32?
    /// Tag 3, SESSION_ACTIVE_THRESHOLD: how long the sender stays active after a message.
    public var activeThresholdMilliseconds: UInt16?
    /// Tag 4, DATA_MODEL_REVISION.
    public var dataModelRevision: UInt16?
    /// Tag 5, INTERACTION_MODEL_REVISION.
    public var interactionModelRevision: UInt16?
    /// Tag 6, SPECIFICATION_VERSION (e.g. 0x01040000 for 1.4.0.0).
    public var specificationVersion: UInt32?
    /// Tag 7, MAX_PATHS_PER_INVOKE.
    public var maxPathsPerInvoke: UInt16?

    public init(
        idleIntervalMilliseconds: UInt32? = nil, activeIntervalMilliseconds: UInt32? = nil,
        activeThresholdMilliseconds: UInt16? = nil, dataModelRevision: UInt16? = nil,
        interactionModelRevision: UInt16? = nil, specificationVersion: UInt32? = nil, maxPathsPerInvoke: UInt16? = nil
    ) {
        self.idleIntervalMilliseconds = idleIntervalMilliseconds
        self.activeIntervalMilliseconds = activeIntervalMilliseconds
        self.activeThresholdMilliseconds = activeThresholdMilliseconds
        self.dataModelRevision = dataModelRevision
        self.interactionModelRevision = interactionModelRevision
        self.specificationVersion = specificationVersion
        self.maxPathsPerInvoke = maxPathsPerInvoke
    }

    /// connectedhomeip's MRP defaults (`ReliableMessageProtocolConfig.h`): idle 500 ms, active 300 ms,
    /// active threshold 4000 ms; the revisions left for the device to fill in.
    public static let mrpDefaults = SessionParameters(
        idleIntervalMilliseconds: 500, activeIntervalMilliseconds: 300, activeThresholdMilliseconds: 4000)

    /// The structure's value, members in tag order, absent ones left out.
    var tlv: TLVValue {
        .contextStructure([
            1: idleIntervalMilliseconds.map { .unsigned(UInt64($0)) },
            2: activeIntervalMilliseconds.map { .unsigned(UInt64($0)) },
            3: activeThresholdMilliseconds.map { .unsigned(UInt64($0)) },
            4: dataModelRevision.map { .unsigned(UInt64($0)) },
            5: interactionModelRevision.map { .unsigned(UInt64($0)) },
            6: specificationVersion.map { .unsigned(UInt64($0)) },
            7: maxPathsPerInvoke.map { .unsigned(UInt64($0)) },
        ])
    }

    /// Member `tag` of `reader`'s message, named `field` in errors; nil when absent.
    static func read(_ tag: UInt8, of reader: MessageReader, field: String) throws(PASEMessageError) -> Self? {
        guard let value = try reader.optionalStructure(tag, field: field, checkingOrder: false) else { return nil }
        let nested = MessageReader(nestedIn: reader, value: value, field: field)
        return SessionParameters(
            idleIntervalMilliseconds: try nested.optionalUInt(1, "idleInterval"),
            activeIntervalMilliseconds: try nested.optionalUInt(2, "activeInterval"),
            activeThresholdMilliseconds: try nested.optionalUInt(3, "activeThreshold"),
            dataModelRevision: try nested.optionalUInt(4, "dataModelRevision"),
            interactionModelRevision: try nested.optionalUInt(5, "interactionModelRevision"),
            specificationVersion: try nested.optionalUInt(6, "specificationVersion"),
            maxPathsPerInvoke: try nested.optionalUInt(7, "maxPathsPerInvoke"))
    }
}

extension MessageReader {
    /// A reader of the structure `value`, member `field` of `parent`'s message, for its own members.
    init(nestedIn parent: MessageReader, value: TLVValue, field: String) {
        self.init(message: "\(parent.message).\(field)", root: value)
    }

    init(message: String, root: TLVValue) {
        self.message = message
        self.root = root
    }

    /// The unsigned member `tag` if present, fitting `T`; nil when absent.
    func optionalUInt<T: FixedWidthInteger & UnsignedInteger>(
        _ tag: UInt8, _ name: String, as _: T.Type = T.self
    ) throws(PASEMessageError) -> T? {
        guard root[tag] != nil else { return nil }
        return try field(name) { value throws(TLVValue.AccessError) in try value.uint(tag, as: T.self) }
    }
}
