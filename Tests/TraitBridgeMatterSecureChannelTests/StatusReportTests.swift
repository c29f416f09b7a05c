import Testing
import TraitBridgeTesting

@testable import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// StatusReport: the spec's Appendix D examples (as CircuitMatter's `tests/test_status_report.py` has
/// them), connectedhomeip's BUSY report, and the code tables.
@Suite("StatusReport")
struct StatusReportTests {
    static let examples: [(String, StatusReport, String)] = [
        (
            "FAILURE from BDX, code 0x52",
            StatusReport(generalCode: .failure, protocolID: .bdx, protocolCode: 0x52), "0100020000005200"
        ),
        (
            "SUCCESS from vendor 0xFFF1's protocol 0xAABB",
            StatusReport(
                generalCode: .success, protocolID: ProtocolID(vendorID: 0xFFF1, id: 0xAABB), protocolCode: 0
            ),
            "0000bbaaf1ff0000"
        ),
        (
            "FAILURE with protocol data",
            StatusReport(
                generalCode: .failure, protocolID: ProtocolID(statusReportField: 0xFFF1_AABB), protocolCode: 9921,
                protocolData: [0x55, 0x66, 0xEE, 0xFF]),
            "0100bbaaf1ffc1265566eeff"
        ),
    ]

    @Test("the spec's examples encode and decode", arguments: examples)
    func example(name: String, report: StatusReport, hex: String) throws {
        #expect(report.encoded.hex == hex)
        #expect(try StatusReport(decoding: [UInt8](hex: hex)) == report)
    }

    @Test("Secure Channel reports pick the general code as connectedhomeip and rs-matter do")
    func secureChannel() {
        #expect(StatusReport.secureChannel(.sessionEstablishmentSuccess).encoded.hex == "0000000000000000")
        #expect(StatusReport.secureChannel(.invalidParameter).encoded.hex == "0100000000000200")
        #expect(StatusReport.secureChannel(.noSharedTrustRoots).generalCode == .failure)
        #expect(StatusReport.secureChannel(.closeSession).generalCode == .success)
        #expect(StatusReport.secureChannel(.invalidParameter).secureChannelStatus == .invalidParameter)
    }

    @Test("BUSY carries the minimum wait as 2 little-endian bytes (connectedhomeip MakeBusyStatusReportMessage)")
    func busy() throws {
        let report = StatusReport.busy(minimumWaitMilliseconds: 5000)
        #expect(report.encoded.hex == "0800000000000400" + "8813")
        let decoded = try StatusReport(decoding: report.encoded)
        #expect(decoded.generalCode == .busy)
        #expect(decoded.secureChannelStatus == .busy)
        #expect(decoded.minimumWaitMilliseconds == 5000)
        #expect(StatusReport.secureChannel(.busy).minimumWaitMilliseconds == nil)
    }

    @Test("fewer than 8 bytes is a typed error; unknown codes survive a round trip")
    func decoding() throws {
        for count in 0..<8 {
            #expect(throws: StatusReport.DecodeError.truncated(byteCount: count)) {
                try StatusReport(decoding: [UInt8](repeating: 0, count: count))
            }
        }
        let unknown = StatusReport(generalCode: GeneralCode(rawValue: 99), protocolID: .secureChannel, protocolCode: 77)
        #expect(try StatusReport(decoding: unknown.encoded) == unknown)
        #expect(unknown.description == "StatusReport(general code 99, protocol 0x0000, secure channel code 77)")
    }

    @Test("the general codes are the spec's 0...16")
    func generalCodes() {
        let codes: [GeneralCode] = [
            .success, .failure, .badPrecondition, .outOfRange, .badRequest, .unsupported, .unexpected,
            .resourceExhausted, .busy, .timeout, .continue, .aborted, .invalidArgument, .notFound, .alreadyExists,
            .permissionDenied, .dataLoss,
        ]
        #expect(codes.map(\.rawValue) == Array(0...16))
        #expect(GeneralCode.invalidArgument.description == "INVALID_ARGUMENT")
        #expect(GeneralCode.dataLoss.description == "DATA_LOSS")
    }

    @Test("the Secure Channel codes are 0...5 and opcodes are connectedhomeip's")
    func secureChannelCodes() {
        let codes: [SecureChannelStatus] = [
            .sessionEstablishmentSuccess, .noSharedTrustRoots, .invalidParameter, .closeSession, .busy,
            .sessionNotFound,
        ]
        #expect(codes.map(\.rawValue) == Array(0...5))
        #expect(SecureChannelStatus.busy.description == "BUSY")
        #expect(SecureChannelOpcode.pbkdfParamRequest.rawValue == 0x20)
        #expect(SecureChannelOpcode.pasePake3.rawValue == 0x24)
        #expect(SecureChannelOpcode.statusReport.rawValue == 0x40)
    }
}
