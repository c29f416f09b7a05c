import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterInteraction
import TraitBridgeTesting

/// Malformed requests are refused with an error naming the message, the field and the byte where the field
/// starts; what the SDK tolerates (member order, unknown tags, a missing revision) is accepted.
@Suite("Interaction Model message decoding")
struct MessageDecodingTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let hex: String
        let field: String
        let offset: Int
        let kind: InteractionMessageError.Kind
        var description: String { name }
    }

    static let readCases: [Case] = [
        // {0: [[2: -1]], 3: true}: the endpoint is a signed integer, at byte 4.
        Case(
            name: "signed endpoint", hex: "153600172002ff1818290318",
            field: "ReadRequest.AttributeRequests[0].Endpoint", offset: 4,
            kind: .wrongType(expected: .unsignedInteger, found: .signedInteger)),
        // {0: [[2: 0x10000]], 3: true}: the endpoint does not fit 16 bits.
        Case(
            name: "endpoint too wide", hex: "15360017260200000100181829 0318",
            field: "ReadRequest.AttributeRequests[0].Endpoint", offset: 4,
            kind: .outOfRange(value: "65536", expected: "UInt16")),
        // {0: [{2: 0}], 3: true}: a path as a structure, not a list.
        Case(
            name: "path as structure", hex: "153600152402001818290318", field: "ReadRequest.AttributeRequests[0]",
            offset: 3, kind: .wrongType(expected: .list, found: .structure)),
        // {0: [[]]}: FabricFiltered missing; the offset is the message's.
        Case(
            name: "no FabricFiltered", hex: "15360017181824ff0b18", field: "ReadRequest.FabricFiltered", offset: 0,
            kind: .missing),
        // {0: {…}}: AttributeRequests as a structure.
        Case(
            name: "requests not an array", hex: "15350024020018290318",
            field: "ReadRequest.AttributeRequests", offset: 1, kind: .wrongType(expected: .array, found: .structure)),
        // {0: [[5: "x"]], 3: true}: ListIndex a string.
        Case(
            name: "list index a string", hex: "153600172c050178181829 0318",
            field: "ReadRequest.AttributeRequests[0].ListIndex", offset: 4,
            kind: .wrongType(expected: .unsignedInteger, found: .utf8String)),
        // {0: [[]], 3: true, 4: [{0: [[1: 0]]}]}: DataVersion missing in a filter.
        Case(
            name: "filter without version", hex: "1536001718182903360415370024010024020618181818",
            field: "ReadRequest.DataVersionFilters[0].DataVersion", offset: 10, kind: .missing),
        // Cut short inside the AttributeRequests array.
        Case(
            name: "truncated", hex: "15360017240200", field: "ReadRequest.0.[0]", offset: 7,
            kind: .malformedTLV(.unclosedContainer(.list, openedAt: 3))),
        // An array at the top: not a structure.
        Case(name: "not a structure", hex: "1618", field: "ReadRequest", offset: 0,
             kind: .wrongType(expected: .structure, found: .array)),
    ]

    @Test("a malformed ReadRequest names the field and the byte", arguments: readCases)
    func readErrors(_ testCase: Case) {
        #expect(throws: InteractionMessageError(
            message: "ReadRequest", field: testCase.field, offset: testCase.offset, kind: testCase.kind)) {
            try ReadRequest(decoding: [UInt8](hex: testCase.hex))
        }
    }

    @Test("the error's text reads field, byte, reason")
    func errorText() {
        do {
            _ = try ReadRequest(decoding: [UInt8](hex: "153600172002ff1818290318"))
            Issue.record("decoded")
        } catch {
            #expect(error.description == "ReadRequest.AttributeRequests[0].Endpoint, byte 4: is a signed integer, "
                + "expected an unsigned integer")
            #expect(error.status == .invalidAction)
        }
    }

    @Test("members out of order, unknown tags and a missing revision are accepted, as connectedhomeip accepts them")
    func tolerated() throws {
        // {3: true, 9: "future", 0: [[4: 3, 2: 0]]}, no 0xFF.
        let request = try ReadRequest(decoding: [UInt8](hex: "1529032c0906667574757265360017240403240200181818"))
        #expect(request.attributeRequests == [AttributePath(endpoint: 0, attribute: 3)])
        #expect(request.interactionModelRevision == nil)
    }

    @Test("a ListIndex of null is an append, and a wildcard flag word is read")
    func listIndexAndFlags() throws {
        // {0: [[2: 1, 5: null, 6: 0x13]], 3: false}
        let request = try ReadRequest(decoding: [UInt8](hex: "1536001724020134052406131818280318"))
        let path = try #require(request.attributeRequests.first)
        #expect(path.listIndex == .append)
        #expect(path.wildcardFlags == [.skipRootNode, .skipGlobalAttributes, .skipCommandLists])
        #expect(try ReadRequest(decoding: request.encoded) == request)
    }

    @Test("a SubscribeRequest like python-matter-server's decodes; a floor above the ceiling is refused")
    func subscribe() throws {
        let request = SubscribeRequest(
            keepSubscriptions: false, minIntervalFloorSeconds: 1, maxIntervalCeilingSeconds: 60,
            attributeRequests: [AttributePath()], eventRequests: [EventPath(isUrgent: true)], isFabricFiltered: true)
        #expect(try SubscribeRequest(decoding: request.encoded) == request)
        var inverted = request
        inverted.minIntervalFloorSeconds = 61
        let encoded = inverted.encoded
        #expect(throws: InteractionMessageError(
            message: "SubscribeRequest", field: "SubscribeRequest.MaxIntervalCeiling", offset: 6,
            kind: .notAllowed("is below MinIntervalFloor (61 s)"))) {
            try SubscribeRequest(decoding: encoded)
        }
    }

    @Test("writes, timed requests and batch invokes round-trip; a wildcard write and a batch without refs do not")
    func writesAndInvokes() throws {
        let write = WriteRequest(
            writeRequests: [AttributeData(
                path: AttributePath(endpoint: 0, cluster: 0x28, attribute: 5), data: .string("Kitchen"),
                dataVersion: nil)],
            isTimedRequest: true)
        #expect(try WriteRequest(decoding: write.encoded) == write)
        let timed = TimedRequest(timeoutMilliseconds: 10_000)
        #expect(try TimedRequest(decoding: timed.encoded) == timed)

        var wildcard = write
        wildcard.writeRequests[0].path.attribute = nil
        let wildcardBytes = wildcard.encoded
        #expect(throws: InteractionMessageError.self) { try WriteRequest(decoding: wildcardBytes) }

        let command = CommandData(path: CommandPath(endpoint: 1, cluster: 6, command: 2), fields: .structure([]))
        let batch = InvokeRequest(invokeRequests: [command, command])
        let batchBytes = batch.encoded
        #expect(throws: InteractionMessageError.self) { try InvokeRequest(decoding: batchBytes) }
        var first = command, second = command
        first.commandRef = 1
        second.commandRef = 2
        let refs = InvokeRequest(invokeRequests: [first, second])
        #expect(try InvokeRequest(decoding: refs.encoded) == refs)
    }
}
