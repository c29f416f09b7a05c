/// Why bytes are not a Matter message this node can read: what was wrong (`kind`, to match on) and
/// at which byte (`offset`, from the start of the message). Every check a received header goes
/// through ends here, so a caller logs one line that says where the message broke and what to do.
public struct MessageDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A field of the message header (Core §4.4.1) or the protocol header (§4.4.3).
    public enum Field: String, Sendable, Hashable {
        case messageFlags = "message flags"
        case sessionID = "session ID"
        case securityFlags = "security flags"
        case messageCounter = "message counter"
        case sourceNodeID = "source node ID"
        case destinationNodeID = "destination node ID"
        case destinationGroupID = "destination group ID"
        case messageExtensionsLength = "message extensions length"
        case messageExtensions = "message extensions"
        case exchangeFlags = "exchange flags"
        case opcode = "protocol opcode"
        case exchangeID = "exchange ID"
        case protocolVendorID = "protocol vendor ID"
        case protocolID = "protocol ID"
        case acknowledgedMessageCounter = "acknowledged message counter"
        case securedExtensionsLength = "secured extensions length"
        case securedExtensions = "secured extensions"
        case messageIntegrityCheck = "message integrity check (MIC)"
    }

    /// What was wrong.
    public enum Kind: Sendable, Hashable {
        /// A fixed-size field needs more bytes than remain.
        case truncated(Field, needed: Int, remaining: Int)
        /// A 16-bit length announces an extension block longer than the bytes that remain.
        case blockBeyondInput(Field, declared: Int, remaining: Int)
        /// Message flags carry a version other than 0, the only one Matter defines.
        case unsupportedVersion(UInt8)
        /// DSIZ is 3, which the spec reserves.
        case reservedDestinationSize
        /// The session type is 2 or 3, which the spec reserves.
        case reservedSessionType(UInt8)
        /// A group ID as destination on a unicast session (the SDK refuses it too).
        case groupDestinationOnUnicastSession
        /// The P flag: the counter and node IDs are obfuscated with a privacy key this node does not have.
        case privacyUnsupported
        /// An unsecured message (session 0, unicast) handed to `open`.
        case unsecuredMessage
        /// A message of secure session `sessionID` handed to `decodeUnsecured`.
        case securedMessage(sessionID: UInt16)
    }

    public var kind: Kind
    /// The byte, counted from the start of the message, where the problem is.
    public var offset: Int

    public init(kind: Kind, offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    public var description: String { "Matter message, byte \(offset): " + explanation }

    private var explanation: String {
        switch kind {
        case .truncated(let field, let needed, let remaining):
            "the \(field.rawValue) needs \(needed) bytes but \(remaining) remain — the datagram was cut short;"
                + " drop it"
        case .blockBeyondInput(let field, let declared, let remaining):
            "the \(field.rawValue) claim \(declared) bytes but \(remaining) remain — the length is corrupt; drop it"
        case .unsupportedVersion(let version):
            "message format version \(version): only version 0 exists (Core §4.4.1); drop it"
        case .reservedDestinationSize:
            "DSIZ is 3, a reserved destination size — not a Matter message; drop it"
        case .reservedSessionType(let type):
            "session type \(type) is reserved (0 unicast, 1 group) — not a Matter message; drop it"
        case .groupDestinationOnUnicastSession:
            "a group ID destination on a unicast session — group messages set session type 1; drop it"
        case .privacyUnsupported:
            "the privacy (P) flag is set and privacy obfuscation is not supported here; drop it"
                + " (only group and MCSP messages use it)"
        case .unsecuredMessage:
            "session 0 carries unsecured messages — decode it with Message.decodeUnsecured, not open"
        case .securedMessage(let sessionID):
            "this message belongs to secure session \(sessionID) — find its key and use Message.open"
        }
    }
}
