public import TraitBridgeMatterCodec
internal import TraitBridgeMatterCredentials
import TraitBridgeMatterInteraction

/// Commands of General Commissioning (0x0030) and Operational Credentials (0x003E): fields decoded
/// from TLV and checked here — a missing or mistyped field is INVALID_COMMAND, a value outside its
/// constraint CONSTRAINT_ERROR — then handed to `CommissioningState` or `DeviceAttestation`.
/// Untrusted fields never trap.
extension RootEndpoint {
    /// Runs `command` of `cluster` with `fields` (the CommandFields structure) from `context`.
    public mutating func invoke(
        endpoint: UInt16, cluster: UInt32, command: UInt32, fields: TLVValue, context: CommandContext
    ) -> InvokeResult {
        guard endpoint == Self.endpoint else { return .status(.unsupportedEndpoint) }
        guard let metadata = ClusterMetadata.all[cluster] else { return .status(.unsupportedCluster) }
        guard metadata.accepted.contains(command) else { return .status(.unsupportedCommand) }
        do throws(StatusCode) {
            switch cluster {
            case ClusterID.generalCommissioning: return try generalCommissioning(command, Fields(fields), context)
            case ClusterID.administratorCommissioning:
                return try administratorCommissioning(command, Fields(fields), context)
            case ClusterID.generalDiagnostics: return try generalDiagnostics(command, Fields(fields), context)
            default: return try operationalCredentials(command, Fields(fields), context)
            }
        } catch {
            return .status(error)
        }
    }

    private mutating func generalCommissioning(
        _ command: UInt32, _ fields: Fields, _ context: CommandContext
    ) throws(StatusCode) -> InvokeResult {
        let code: CommissioningError
        switch command {
        case 0x00:
            let seconds = try fields.uint(0, as: UInt16.self)
            let breadcrumb = try fields.uint(1, as: UInt64.self)
            code = state.armFailSafe(expiry: .seconds(Int(seconds)), breadcrumb: breadcrumb, context: context)
        case 0x02:
            let rawConfig = try fields.uint(0, as: UInt8.self)
            let country = try fields.string(1, maxBytes: 2)
            guard country.utf8.count == 2 else { throw .constraintError }
            let breadcrumb = try fields.uint(2, as: UInt64.self)
            // An unknown config is a ValueOutsideRange response, not a status, as in the SDK.
            guard let config = RegulatoryLocation(rawValue: rawConfig) else {
                return Self.commissioningResponse(command, .valueOutsideRange)
            }
            code = state.setRegulatoryConfig(config, countryCode: country, breadcrumb: breadcrumb, context: context)
        default:
            code = state.commissioningComplete(context: context)
        }
        return Self.commissioningResponse(command, code)
    }

    private mutating func operationalCredentials(
        _ command: UInt32, _ fields: Fields, _ context: CommandContext
    ) throws(StatusCode) -> InvokeResult {
        switch command {
        case 0x00:
            let nonce = try fields.octets(0, maxBytes: 32)
            guard nonce.count == 32 else { throw .invalidCommand }
            guard
                let reply = try? attestation.attestationResponse(
                    nonce: nonce, attestationChallenge: context.attestationChallenge)
            else { throw .failure }
            return .response(
                commandID: 0x01, fields: .contextStructure([0: .octets(reply.elements), 1: .octets(reply.signature)]))
        case 0x02:
            guard let certificate = attestation.certificate(type: try fields.uint(0, as: UInt8.self)) else {
                throw .invalidCommand
            }
            return .response(commandID: 0x03, fields: .contextStructure([0: .octets(certificate)]))
        case 0x04:
            return try csrRequest(fields, context)
        case 0x06:
            return Self.nocResponse(try state.addNOC(try Self.addNOCRequest(fields), context: context).get())
        case 0x07:
            // As HandleUpdateNOC: a certificate over 400 bytes is INVALID_COMMAND, before the fail-safe.
            let noc = try fields.octets(0, maxBytes: .max)
            let icac = try fields.optionalOctets(1, maxBytes: .max)
            guard noc.count <= 400, (icac?.count ?? 0) <= 400 else { throw .invalidCommand }
            return Self.nocResponse(try state.updateNOC(noc: noc, icac: icac, context: context).get())
        case 0x09:
            // Over 32 bytes is INVALID_COMMAND in the SDK (a TODO there says it may become CONSTRAINT_ERROR).
            let label: String
            do { label = try fields.string(0, maxBytes: 32) } catch {
                throw error == .constraintError ? .invalidCommand : error
            }
            return Self.nocResponse(state.updateFabricLabel(label, context: context))
        case 0x0A:
            let index = try fields.uint(0, as: UInt8.self)
            guard (1...254).contains(index) else { throw .constraintError }
            return Self.nocResponse(state.removeFabric(index, context: context))
        default:
            return .status(state.addTrustedRoot(try fields.octets(0, maxBytes: 400), context: context))
        }
    }

    private mutating func csrRequest(_ fields: Fields, _ context: CommandContext) throws(StatusCode)
        -> InvokeResult
    {
        let nonce = try fields.octets(0, maxBytes: 32)
        guard nonce.count == 32 else { throw .invalidCommand }
        let isForUpdateNOC = try fields.optionalBool(1) ?? false
        let key = try state.makeOperationalKey(isForUpdateNOC: isForUpdateNOC, context: context).get()
        guard let csr = try? key.certificateSigningRequest(),
            let reply = try? attestation.csrResponse(
                csr: csr, nonce: nonce, attestationChallenge: context.attestationChallenge)
        else { throw .failure }
        return .response(
            commandID: 0x05, fields: .contextStructure([0: .octets(reply.elements), 1: .octets(reply.signature)]))
    }

    /// ArmFailSafeResponse, SetRegulatoryConfigResponse or CommissioningCompleteResponse.
    private static func commissioningResponse(_ command: UInt32, _ code: CommissioningError) -> InvokeResult {
        .response(
            commandID: command + 1, fields: .contextStructure([0: .unsigned(UInt64(code.rawValue)), 1: .string("")]))
    }

    /// AddNOC's fields; sizes and the vendor id are INVALID_COMMAND, before the fail-safe is
    /// looked at, as in the SDK's `HandleAddNOC`.
    private static func addNOCRequest(_ fields: Fields) throws(StatusCode) -> CommissioningState.AddNOCRequest {
        let noc = try fields.octets(0, maxBytes: .max)
        let icac = try fields.optionalOctets(1, maxBytes: .max)
        let ipk = try fields.octets(2, maxBytes: .max)
        let vendorID = try fields.uint(4, as: UInt16.self)
        guard noc.count <= 400, (icac?.count ?? 0) <= 400, ipk.count == 16, vendorID != 0, vendorID <= 0xFFF4 else {
            throw .invalidCommand
        }
        return CommissioningState.AddNOCRequest(
            noc: noc, icac: icac, ipkEpochKey: ipk, caseAdminSubject: try fields.uint(3, as: UInt64.self),
            adminVendorID: vendorID)
    }

    private static func nocResponse(_ response: CommissioningState.NOCResponse) -> InvokeResult {
        .response(
            commandID: 0x08,
            fields: .contextStructure([
                0: .unsigned(UInt64(response.status.rawValue)), 1: response.fabricIndex.map { .unsigned(UInt64($0)) },
            ]))
    }
}

/// A command's fields, read with IM statuses for errors: absent or mistyped → INVALID_COMMAND,
/// out of range or too long → CONSTRAINT_ERROR.
struct Fields {
    let value: TLVValue

    init(_ value: TLVValue) { self.value = value }

    func uint<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt8, as type: T.Type) throws(StatusCode) -> T {
        do { return try value.uint(tag, as: type) } catch { throw Self.status(error) }
    }

    func string(_ tag: UInt8, maxBytes: Int) throws(StatusCode) -> String {
        let text: String
        do { text = try value.string(tag) } catch { throw Self.status(error) }
        guard text.utf8.count <= maxBytes else { throw .constraintError }
        return text
    }

    func octets(_ tag: UInt8, maxBytes: Int) throws(StatusCode) -> [UInt8] {
        let bytes: [UInt8]
        do { bytes = try value.octets(tag) } catch { throw Self.status(error) }
        guard bytes.count <= maxBytes else { throw .constraintError }
        return bytes
    }

    func optionalOctets(_ tag: UInt8, maxBytes: Int) throws(StatusCode) -> [UInt8]? {
        guard value[tag] != nil else { return nil }
        return try octets(tag, maxBytes: maxBytes)
    }

    func optionalBool(_ tag: UInt8) throws(StatusCode) -> Bool? {
        guard value[tag] != nil else { return nil }
        do { return try value.bool(tag) } catch { throw Self.status(error) }
    }

    private static func status(_ error: TLVValue.AccessError) -> StatusCode {
        switch error {
        case .outOfRange, .wrongLength: .constraintError
        case .notAContainer, .missing, .wrongType: .invalidCommand
        }
    }
}
