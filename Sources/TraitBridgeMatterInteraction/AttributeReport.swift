public import TraitBridgeMatterCodec

/// StatusIB (Matter Core §10.6.17): a status code and, for a cluster-specific failure, the cluster's own
/// code. A structure `{0 Status u8, 1 ClusterStatus u8 (optional)}` (connectedhomeip `StatusIB.h`).
public struct InteractionStatus: Sendable, Hashable, CustomStringConvertible {
    public var code: StatusCode
    public var clusterStatus: UInt8?

    public init(_ code: StatusCode, clusterStatus: UInt8? = nil) {
        self.code = code
        self.clusterStatus = clusterStatus
    }

    public var tlv: TLVValue {
        .contextStructure([0: .unsigned(UInt64(code.rawValue)), 1: clusterStatus.map { .unsigned(UInt64($0)) }])
    }

    public var description: String { code.description + (clusterStatus.map { " (cluster status \($0))" } ?? "") }

    init(reading reader: FieldReader) throws(InteractionMessageError) {
        let status = try reader.expect(.structure)
        code = StatusCode(rawValue: try status.required(0, "Status").uint(UInt8.self))
        clusterStatus = try status.optional(1, "ClusterStatus").uint(UInt8.self)
    }
}

/// AttributeDataIB (Matter Core §10.6.4): one attribute's value, in a report or a write. A structure
/// `{0 DataVersion u32 (optional in writes), 1 Path AttributePathIB, 2 Data any}`.
public struct AttributeData: Sendable, Equatable {
    /// The cluster instance's data version the value belongs to; reports always carry it.
    public var dataVersion: UInt32?
    public var path: AttributePath
    public var data: TLVValue

    public init(path: AttributePath, data: TLVValue, dataVersion: UInt32?) {
        self.dataVersion = dataVersion
        self.path = path
        self.data = data
    }

    public var tlv: TLVValue {
        .contextStructure([0: dataVersion.map { .unsigned(UInt64($0)) }, 1: path.tlv, 2: data])
    }

    init(reading reader: FieldReader) throws(InteractionMessageError) {
        let data = try reader.expect(.structure)
        dataVersion = try data.optional(0, "DataVersion").uint(UInt32.self)
        path = try AttributePath(reading: try data.required(1, "Path"))
        self.data = try data.required(2, "Data").value
    }
}

/// AttributeStatusIB (Matter Core §10.6.16): an attribute path and why it has no value (a read of a
/// concrete path that does not exist) or how its write went. A structure `{0 Path, 1 Status StatusIB}`.
public struct AttributeStatus: Sendable, Hashable {
    public var path: AttributePath
    public var status: InteractionStatus

    public init(path: AttributePath, status: InteractionStatus) {
        self.path = path
        self.status = status
    }

    public var tlv: TLVValue { .contextStructure([0: path.tlv, 1: status.tlv]) }

    init(reading reader: FieldReader) throws(InteractionMessageError) {
        let status = try reader.expect(.structure)
        path = try AttributePath(reading: try status.required(0, "Path"))
        self.status = try InteractionStatus(reading: try status.required(1, "Status"))
    }
}

/// AttributeReportIB (Matter Core §10.6.5): one entry of a ReportData's AttributeReports, either a value
/// or a status. A structure holding exactly one of `{0 AttributeStatus, 1 AttributeData}`.
public enum AttributeReport: Sendable, Equatable {
    case data(AttributeData)
    case status(AttributeStatus)

    public var tlv: TLVValue {
        switch self {
        case .status(let status): .contextStructure([0: status.tlv])
        case .data(let data): .contextStructure([1: data.tlv])
        }
    }

    /// The report's bytes as an anonymous array element: what it adds to a ReportData.
    public var encoded: [UInt8] { TLVElement(value: tlv).encoded }

    /// The path it reports on.
    public var path: AttributePath {
        switch self {
        case .data(let data): data.path
        case .status(let status): status.path
        }
    }

    init(reading reader: FieldReader) throws(InteractionMessageError) {
        let report = try reader.expect(.structure)
        switch (report.optional(0, "AttributeStatus"), report.optional(1, "AttributeData")) {
        case (let status?, nil): self = .status(try AttributeStatus(reading: status))
        case (nil, let data?): self = .data(try AttributeData(reading: data))
        case (.some, .some): throw report.fail(.notAllowed("holds both AttributeStatus and AttributeData"))
        case (nil, nil): throw report.fail(.notAllowed("holds neither AttributeStatus nor AttributeData"))
        }
    }
}
