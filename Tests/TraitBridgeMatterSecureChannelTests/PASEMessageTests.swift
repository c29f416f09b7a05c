import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCrypto
import TraitBridgeTesting

@testable import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// The PASE messages: Apple Home's and CircuitMatter's recorded payloads decode to what they say and
/// encode back to the same bytes; malformed payloads give errors that name the field.
@Suite("PASE messages")
struct PASEMessageTests {
    @Test("Apple Home's PBKDFParamRequest decodes, session parameters included, and re-encodes byte for byte")
    func recordedRequest() throws {
        let (opcode, payload) = RecordedPASE.unsecured(RecordedPASE.pbkdfParamRequest)
        #expect(opcode == SecureChannelOpcode.pbkdfParamRequest.rawValue)
        let request = try PBKDFParamRequest(decoding: payload)
        #expect(request.initiatorRandom.hex == "a882bce8bfdeab50e04ac596bfc05024db5902b7512ed9b278cfaacc12523012")
        #expect(request.initiatorSessionID == 0xE4B6)
        #expect(request.passcodeID == 0)
        #expect(!request.hasPBKDFParameters)
        #expect(
            request.initiatorSessionParameters
                == SessionParameters(
                    idleIntervalMilliseconds: 500, activeIntervalMilliseconds: 300, activeThresholdMilliseconds: 4000,
                    dataModelRevision: 18, interactionModelRevision: 11, specificationVersion: 0x0104_0000,
                    maxPathsPerInvoke: 1))
        #expect(request.encoded == payload)
    }

    @Test("CircuitMatter's PBKDFParamResponse decodes (no session parameters) and re-encodes byte for byte")
    func recordedResponse() throws {
        let (opcode, payload) = RecordedPASE.unsecured(RecordedPASE.pbkdfParamResponse)
        #expect(opcode == SecureChannelOpcode.pbkdfParamResponse.rawValue)
        let response = try PBKDFParamResponse(decoding: payload)
        let request = try PBKDFParamRequest(decoding: RecordedPASE.payload(RecordedPASE.pbkdfParamRequest))
        #expect(response.initiatorRandom == request.initiatorRandom)
        #expect(response.responderSessionID == 1)
        #expect(response.pbkdfParameters == .init(iterations: 10_000, salt: RecordedPASE.salt))
        #expect(response.responderSessionParameters == nil)
        #expect(response.encoded == payload)
    }

    @Test("the recorded Pake1, Pake2 and Pake3 decode with their lengths and re-encode byte for byte")
    func recordedPakes() throws {
        let pake1 = RecordedPASE.unsecured(RecordedPASE.pake1)
        let pake2 = RecordedPASE.unsecured(RecordedPASE.pake2)
        let pake3 = RecordedPASE.unsecured(RecordedPASE.pake3)
        #expect([pake1.opcode, pake2.opcode, pake3.opcode] == [0x22, 0x23, 0x24])
        #expect(try Pake1(decoding: pake1.payload).pA.count == 65)
        #expect(try Pake1(decoding: pake1.payload).encoded == pake1.payload)
        #expect(try Pake2(decoding: pake2.payload).cB.count == 32)
        #expect(try Pake2(decoding: pake2.payload).encoded == pake2.payload)
        #expect(try Pake3(decoding: pake3.payload).encoded == pake3.payload)
    }

    @Test("a request that says it has the PBKDF parameters gets a response without them")
    func responseWithoutParameters() throws {
        let response = PBKDFParamResponse(
            initiatorRandom: [UInt8](repeating: 1, count: 32), responderRandom: [UInt8](repeating: 2, count: 32),
            responderSessionID: 7, pbkdfParameters: nil)
        let decoded = try PBKDFParamResponse(decoding: response.encoded)
        #expect(decoded == response)
        #expect(try TLVElement(decoding: response.encoded).value[4] == nil)
    }

    static let random = TLVValue.octets([UInt8](repeating: 0xAB, count: 32))

    static func request(_ members: KeyValuePairs<UInt8, TLVValue?>) -> [UInt8] {
        TLVElement(value: .contextStructure(members)).encoded
    }

    /// Payloads that are not a PBKDFParamRequest, and the error each must give.
    static let malformedRequests: [(String, [UInt8], PASEMessageError)] = [
        ("empty", [], .malformedTLV(message: "PBKDFParamRequest", .init(kind: .noElement, offset: 0, path: ""))),
        (
            "truncated inside the random", Array(request([1: random, 2: .unsigned(1)]).prefix(20)),
            .malformedTLV(
                message: "PBKDFParamRequest",
                .init(kind: .lengthBeyondInput(declared: 32, remaining: 16), offset: 3, path: "1"))
        ),
        (
            "an array", TLVElement(value: .array([])).encoded,
            .notAnonymousStructure(message: "PBKDFParamRequest", found: "array")
        ),
        (
            "random of 31 bytes",
            request([1: .octets([UInt8](repeating: 0, count: 31)), 2: .unsigned(1), 3: .unsigned(0), 4: .bool(false)]),
            .invalidField(
                message: "PBKDFParamRequest", field: "initiatorRandom",
                .wrongLength(.context(1), expected: 32, found: 31))
        ),
        (
            "random missing", request([2: .unsigned(1), 3: .unsigned(0), 4: .bool(false)]),
            .invalidField(message: "PBKDFParamRequest", field: "initiatorRandom", .missing(.context(1)))
        ),
        (
            "session ID of 17 bits", request([1: random, 2: .unsigned(0x1_0000), 3: .unsigned(0), 4: .bool(false)]),
            .invalidField(
                message: "PBKDFParamRequest", field: "initiatorSessionId",
                .outOfRange(.context(2), value: "65536", expected: "UInt16"))
        ),
        (
            "session ID signed", request([1: random, 2: .signed(1), 3: .unsigned(0), 4: .bool(false)]),
            .invalidField(
                message: "PBKDFParamRequest", field: "initiatorSessionId",
                .wrongType(.context(2), expected: .unsignedInteger, found: .signedInteger))
        ),
        (
            "hasPBKDFParameters as an integer",
            request([1: random, 2: .unsigned(1), 3: .unsigned(0), 4: .unsigned(1)]),
            .invalidField(
                message: "PBKDFParamRequest", field: "hasPBKDFParameters",
                .wrongType(.context(4), expected: .boolean, found: .unsignedInteger))
        ),
        (
            "members out of order",
            TLVElement(
                value: .structure([
                    .init(tag: .context(2), value: .unsigned(1)), .init(tag: .context(1), value: random),
                ])
            ).encoded,
            .memberOutOfOrder(message: "PBKDFParamRequest", tag: .context(1))
        ),
        (
            "session parameters not a structure",
            request([1: random, 2: .unsigned(1), 3: .unsigned(0), 4: .bool(false), 5: .unsigned(3)]),
            .invalidField(
                message: "PBKDFParamRequest", field: "initiatorSessionParams",
                .wrongType(.context(5), expected: .structure, found: .unsignedInteger))
        ),
        (
            "idle interval of 33 bits",
            request([
                1: random, 2: .unsigned(1), 3: .unsigned(0), 4: .bool(false),
                5: .contextStructure([1: .unsigned(1 << 32)]),
            ]),
            .invalidField(
                message: "PBKDFParamRequest.initiatorSessionParams", field: "idleInterval",
                .outOfRange(.context(1), value: "4294967296", expected: "UInt32"))
        ),
    ]

    @Test("a malformed PBKDFParamRequest gives an error naming what is wrong", arguments: malformedRequests)
    func malformedRequest(name: String, payload: [UInt8], expected: PASEMessageError) {
        #expect(throws: expected) { try PBKDFParamRequest(decoding: payload) }
    }

    @Test("unknown members after the known ones are ignored, as connectedhomeip ignores them")
    func unknownTrailingMembers() throws {
        let payload = Self.request([
            1: Self.random, 2: .unsigned(1), 3: .unsigned(0), 4: .bool(true),
            5: .contextStructure([9: .string("future"), 1: .unsigned(200)]), 6: .null,
        ])
        let request = try PBKDFParamRequest(decoding: payload)
        #expect(request.hasPBKDFParameters)
        #expect(request.initiatorSessionParameters == SessionParameters(idleIntervalMilliseconds: 200))
    }

    static let malformedResponses: [(String, [UInt8], PASEMessageError)] = [
        (
            "salt of 15 bytes",
            request([
                1: random, 2: random, 3: .unsigned(1),
                4: .contextStructure([1: .unsigned(1000), 2: .octets([UInt8](repeating: 0, count: 15))]),
            ]),
            .valueNotAllowed(
                message: "PBKDFParamResponse.pbkdf_parameters", field: "salt", reason: "15 bytes, expected 16...32")
        ),
        (
            "999 iterations",
            request([
                1: random, 2: random, 3: .unsigned(1),
                4: .contextStructure([1: .unsigned(999), 2: .octets([UInt8](repeating: 0, count: 16))]),
            ]),
            .valueNotAllowed(
                message: "PBKDFParamResponse.pbkdf_parameters", field: "iterations",
                reason: "999 is outside 1000...100000")
        ),
        (
            "salt missing",
            request([1: random, 2: random, 3: .unsigned(1), 4: .contextStructure([1: .unsigned(1000)])]),
            .invalidField(message: "PBKDFParamResponse.pbkdf_parameters", field: "salt", .missing(.context(2)))
        ),
    ]

    @Test("a malformed PBKDFParamResponse gives an error naming what is wrong", arguments: malformedResponses)
    func malformedResponse(name: String, payload: [UInt8], expected: PASEMessageError) {
        #expect(throws: expected) { try PBKDFParamResponse(decoding: payload) }
    }

    @Test("Pake1, Pake2 and Pake3 check their lengths and types")
    func malformedPakes() {
        let point = TLVValue.octets([4] + [UInt8](repeating: 1, count: 64))
        #expect(
            throws: PASEMessageError.invalidField(
                message: "Pake1", field: "pA", .wrongLength(.context(1), expected: 65, found: 64))
        ) {
            try Pake1(decoding: Self.request([1: .octets([UInt8](repeating: 1, count: 64))]))
        }
        #expect(throws: PASEMessageError.invalidField(message: "Pake2", field: "cB", .missing(.context(2)))) {
            try Pake2(decoding: Self.request([1: point]))
        }
        #expect(
            throws: PASEMessageError.invalidField(
                message: "Pake3", field: "cA", .wrongType(.context(1), expected: .octetString, found: .utf8String))
        ) {
            try Pake3(decoding: Self.request([1: .string("cA")]))
        }
        #expect(
            throws: PASEMessageError.malformedTLV(
                message: "Pake3", .init(kind: .trailingBytes(count: 1), offset: 37, path: ""))
        ) {
            try Pake3(decoding: Self.request([1: .octets([UInt8](repeating: 0, count: 32))]) + [0])
        }
    }

    @Test("every error's description names the message and the field")
    func descriptions() throws {
        let error = PASEMessageError.invalidField(
            message: "Pake1", field: "pA", .wrongLength(.context(1), expected: 65, found: 64))
        #expect(error.description == "Pake1.pA: Matter TLV: member 1 has 64 bytes, expected 65")
    }
}
