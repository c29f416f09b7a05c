public import TraitBridgeMatterCodec

/// CommandDataIB (Matter Core §10.6.12): one command of an invoke, or one command response. A structure
/// `{0 CommandPath CommandPathIB, 1 CommandFields any (a structure), 2 CommandRef u16 (optional)}`; the
/// reference pairs responses with requests when an invoke batches several (Interaction Model revision 12).
public struct CommandData: Sendable, Equatable {
    public var path: CommandPath
    public var fields: TLVValue?
    public var commandRef: UInt16?

    public init(path: CommandPath, fields: TLVValue?, commandRef: UInt16? = nil) {
        self.path = path
        self.fields = fields
        self.commandRef = commandRef
    }

    public var tlv: TLVValue {
        .contextStructure([0: path.tlv, 1: fields, 2: commandRef.map { .unsigned(UInt64($0)) }])
    }

    init(reading reader: FieldReader) throws(InteractionMessageError) {
        let command = try reader.expect(.structure)
        path = try CommandPath(reading: try command.required(0, "CommandPath"))
        fields = command.optional(1, "CommandFields")?.value
        commandRef = try command.optional(2, "CommandRef").uint(UInt16.self)
    }
}

/// InvokeResponseIB (Matter Core §10.6.13): the answer to one command, a response command or a status.
/// A structure holding one of `{0 Command CommandDataIB, 1 Status CommandStatusIB}`, where CommandStatusIB
/// is `{0 CommandPath, 1 Status StatusIB, 2 CommandRef u16 (optional)}` (§10.6.14).
public enum CommandResponse: Sendable, Equatable {
    case command(CommandData)
    case status(path: CommandPath, status: InteractionStatus, commandRef: UInt16? = nil)

    public var tlv: TLVValue {
        switch self {
        case .command(let data): return .contextStructure([0: data.tlv])
        case .status(let path, let status, let commandRef):
            let commandStatus = TLVValue.contextStructure([
                0: path.tlv, 1: status.tlv, 2: commandRef.map { .unsigned(UInt64($0)) },
            ])
            return .contextStructure([1: commandStatus])
        }
    }
}
