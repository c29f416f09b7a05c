import TraitBridgeMatterCodec

/// PBKDFParamRequest (Secure Channel opcode 0x20), the commissioner's first PASE message: its random,
/// its session ID, and whether it already knows the device's PBKDF parameters. It exists so the
/// responder reads it strictly and a commissioner (or a test) writes it. Layout (connectedhomeip
/// `PASESession.cpp` `PBKDFParamRequestTags`, rs-matter `PBKDFParamReq`, CircuitMatter `pase.py`):
/// `{1 initiatorRandom octets[32], 2 initiatorSessionId u16, 3 passcodeId u16, 4 hasPBKDFParameters bool,
/// 5 initiatorSessionParams session-parameter-struct (optional)}`.
public struct PBKDFParamRequest: Sendable, Hashable {
    static let name = "PBKDFParamRequest"

    /// 32 random bytes.
    public var initiatorRandom: [UInt8]
    /// The session ID the device must put on messages to the commissioner once the session is up.
    public var initiatorSessionID: UInt16
    /// 0 for the commissioning passcode (the only one Matter defines: kDefaultCommissioningPasscodeId).
    public var passcodeID: UInt16
    /// True when the commissioner has the salt and iterations already; the response then leaves them out.
    public var hasPBKDFParameters: Bool
    public var initiatorSessionParameters: SessionParameters?

    public init(
        initiatorRandom: [UInt8], initiatorSessionID: UInt16, passcodeID: UInt16 = 0, hasPBKDFParameters: Bool = false,
        initiatorSessionParameters: SessionParameters? = nil
    ) {
        self.initiatorRandom = initiatorRandom
        self.initiatorSessionID = initiatorSessionID
        self.passcodeID = passcodeID
        self.hasPBKDFParameters = hasPBKDFParameters
        self.initiatorSessionParameters = initiatorSessionParameters
    }

    /// Reads a payload as received: types and the random's length checked, members in tag order.
    /// - Throws: ``PASEMessageError`` naming the field.
    public init(decoding payload: [UInt8]) throws(PASEMessageError) {
        let reader = try MessageReader(payload, message: Self.name)
        self.init(
            initiatorRandom: try reader.octets(1, "initiatorRandom", count: PASEConstants.randomByteCount),
            initiatorSessionID: try reader.uint(2, "initiatorSessionId"),
            passcodeID: try reader.uint(3, "passcodeId"),
            hasPBKDFParameters: try reader.field("hasPBKDFParameters") { value throws(TLVValue.AccessError) in
                try value.bool(4)
            },
            initiatorSessionParameters: try SessionParameters.read(5, of: reader, field: "initiatorSessionParams"))
    }

    /// The payload, integers in their shortest form as connectedhomeip writes them.
    public var encoded: [UInt8] {
        TLVElement.encodedStructure([
            1: .octets(initiatorRandom), 2: .unsigned(UInt64(initiatorSessionID)), 3: .unsigned(UInt64(passcodeID)),
            4: .bool(hasPBKDFParameters), 5: initiatorSessionParameters?.tlv,
        ])
    }
}

/// PBKDFParamResponse (opcode 0x21), the device's answer: the commissioner's random echoed, its own
/// random and session ID, and the salt and iterations unless the request said the commissioner has
/// them. Layout (same sources): `{1 initiatorRandom octets[32], 2 responderRandom octets[32],
/// 3 responderSessionId u16, 4 pbkdf_parameters {1 iterations u32, 2 salt octets[16..32]} (optional),
/// 5 responderSessionParams (optional)}`.
public struct PBKDFParamResponse: Sendable, Hashable {
    static let name = "PBKDFParamResponse"

    /// The salt and iteration count of the device's verifier (Crypto_PBKDFParameterSet).
    public struct PBKDFParameters: Sendable, Hashable {
        public var iterations: UInt32
        public var salt: [UInt8]

        public init(iterations: UInt32, salt: [UInt8]) {
            self.iterations = iterations
            self.salt = salt
        }
    }

    public var initiatorRandom: [UInt8]
    public var responderRandom: [UInt8]
    /// The session ID the commissioner must put on messages to the device once the session is up.
    public var responderSessionID: UInt16
    public var pbkdfParameters: PBKDFParameters?
    public var responderSessionParameters: SessionParameters?

    public init(
        initiatorRandom: [UInt8], responderRandom: [UInt8], responderSessionID: UInt16,
        pbkdfParameters: PBKDFParameters?, responderSessionParameters: SessionParameters? = nil
    ) {
        self.initiatorRandom = initiatorRandom
        self.responderRandom = responderRandom
        self.responderSessionID = responderSessionID
        self.pbkdfParameters = pbkdfParameters
        self.responderSessionParameters = responderSessionParameters
    }

    /// Reads a payload: randoms of 32 bytes, the salt of 16...32 and the iterations in 1000...100000
    /// (connectedhomeip checks the salt's length here; the iteration range is the spec's).
    /// - Throws: ``PASEMessageError`` naming the field.
    public init(decoding payload: [UInt8]) throws(PASEMessageError) {
        let reader = try MessageReader(payload, message: Self.name)
        var parameters: PBKDFParameters?
        if let value = try reader.optionalStructure(4, field: "pbkdf_parameters", checkingOrder: true) {
            let nested = MessageReader(nestedIn: reader, value: value, field: "pbkdf_parameters")
            let iterations: UInt32 = try nested.uint(1, "iterations")
            let salt = try nested.octets(2, "salt")
            guard PASEConstants.iterationCounts.contains(Int(iterations)) else {
                throw .valueNotAllowed(
                    message: nested.message, field: "iterations", reason: "\(iterations) is outside 1000...100000")
            }
            guard PASEConstants.saltByteCounts.contains(salt.count) else {
                throw .valueNotAllowed(
                    message: nested.message, field: "salt", reason: "\(salt.count) bytes, expected 16...32")
            }
            parameters = PBKDFParameters(iterations: iterations, salt: salt)
        }
        self.init(
            initiatorRandom: try reader.octets(1, "initiatorRandom", count: PASEConstants.randomByteCount),
            responderRandom: try reader.octets(2, "responderRandom", count: PASEConstants.randomByteCount),
            responderSessionID: try reader.uint(3, "responderSessionId"), pbkdfParameters: parameters,
            responderSessionParameters: try SessionParameters.read(5, of: reader, field: "responderSessionParams"))
    }

    /// The payload, as the device sends it and hashes it into the SPAKE2+ context.
    public var encoded: [UInt8] {
        let parameters = pbkdfParameters.map { parameters in
            TLVValue.contextStructure([1: .unsigned(UInt64(parameters.iterations)), 2: .octets(parameters.salt)])
        }
        return TLVElement.encodedStructure([
            1: .octets(initiatorRandom), 2: .octets(responderRandom), 3: .unsigned(UInt64(responderSessionID)),
            4: parameters, 5: responderSessionParameters?.tlv,
        ])
    }
}

extension MessageReader {
    /// The octet-string member `tag`, of exactly `count` bytes when given.
    func octets(_ tag: UInt8, _ name: String, count: Int? = nil) throws(PASEMessageError) -> [UInt8] {
        try field(name) { value throws(TLVValue.AccessError) in try value.octets(tag, count: count) }
    }

    /// The unsigned member `tag`, fitting `T`.
    func uint<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt8, _ name: String) throws(PASEMessageError) -> T {
        try field(name) { value throws(TLVValue.AccessError) in try value.uint(tag, as: T.self) }
    }
}
