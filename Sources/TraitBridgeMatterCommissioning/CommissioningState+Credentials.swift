internal import Crypto
public import TraitBridgeMatterCredentials
public import TraitBridgeMatterInteraction

/// The Operational Credentials commands that change state: CSRRequest's key, AddTrustedRootCertificate,
/// AddNOC, UpdateFabricLabel, RemoveFabric. Checks follow the SDK's `operational-credentials-server`
/// in its order, so a commissioner sees the status it would see from an SDK device.
extension CommissioningState {
    /// The fields of AddNOC (Operational Credentials command 0x06), decoded and size-checked.
    public struct AddNOCRequest: Sendable, Hashable {
        public var noc: [UInt8]
        public var icac: [UInt8]?
        /// IPKValue: the IPK epoch key, 16 bytes.
        public var ipkEpochKey: [UInt8]
        public var caseAdminSubject: UInt64
        public var adminVendorID: UInt16

        public init(noc: [UInt8], icac: [UInt8]?, ipkEpochKey: [UInt8], caseAdminSubject: UInt64, adminVendorID: UInt16)
        {
            self.noc = noc
            self.icac = icac
            self.ipkEpochKey = ipkEpochKey
            self.caseAdminSubject = caseAdminSubject
            self.adminVendorID = adminVendorID
        }
    }

    /// NOCResponse's fields: the status and, when it names one, the fabric index.
    public struct NOCResponse: Sendable, Hashable {
        public var status: NOCStatus
        public var fabricIndex: UInt8?

        public init(_ status: NOCStatus, fabricIndex: UInt8? = nil) {
            self.status = status
            self.fabricIndex = fabricIndex
        }
    }

    /// CSRRequest: a fresh operational key for this fail-safe, replacing an earlier one. Needs the
    /// fail-safe; refused (CONSTRAINT_ERROR) once AddNOC or UpdateNOC has run in it, for UpdateNOC
    /// without a fabric (INVALID_COMMAND) and for UpdateNOC after AddTrustedRootCertificate (FAILURE).
    public mutating func makeOperationalKey(
        isForUpdateNOC: Bool, context: CommandContext
    ) -> Result<OperationalKeyPair, StatusCode> {
        advance(to: context.now)
        guard !isForUpdateNOC || fabric(context.fabricIndex) != nil else { return .failure(.invalidCommand) }
        guard var armed = failSafe, armed.isHeld(by: context) else { return .failure(.failsafeRequired) }
        guard !armed.isNOCInvoked else { return .failure(.constraintError) }
        // An update keeps the fabric's root: the SDK's key allocation fails with a root pending.
        guard !isForUpdateNOC || armed.pendingRoot == nil else { return .failure(.failure) }
        let key = OperationalKeyPair()
        armed.pendingKey = key
        armed.isCSRForUpdateNOC = isForUpdateNOC
        failSafe = armed
        return .success(key)
    }

    /// AddTrustedRootCertificate: stages `tlv` as the root for the coming AddNOC once it decodes as
    /// a self-issued, self-signed CA (INVALID_COMMAND otherwise). One per fail-safe.
    public mutating func addTrustedRoot(_ tlv: [UInt8], context: CommandContext) -> StatusCode {
        advance(to: context.now)
        guard var armed = failSafe, armed.isHeld(by: context) else { return .failsafeRequired }
        guard armed.pendingRoot == nil, !armed.isNOCInvoked else { return .constraintError }
        guard let root = try? OperationalCertificate(tlv: tlv), root.subject.rcacID != nil, root.isCA,
            root.issuer == root.subject, Self.isSelfSigned(root)
        else { return .invalidCommand }
        armed.pendingRoot = root
        failSafe = armed
        return .success
    }

    /// AddNOC: verifies the chain against the staged root (time ignored, as the SDK does when
    /// installing), checks the NOC certifies CSRRequest's key, allocates a fabric index, installs
    /// the fabric and the first ACL entry (Administer over CASE for CaseAdminSubject).
    public mutating func addNOC(
        _ request: AddNOCRequest, context: CommandContext
    ) -> Result<NOCResponse, StatusCode> {
        advance(to: context.now)
        guard var armed = failSafe, armed.isHeld(by: context) else { return .failure(.failsafeRequired) }
        guard request.ipkEpochKey.count == 16 else { return .failure(.invalidCommand) }
        guard !armed.isNOCInvoked else { return .failure(.constraintError) }
        guard let key = armed.pendingKey else { return .success(NOCResponse(.missingCsr)) }
        guard !armed.isCSRForUpdateNOC else { return .failure(.constraintError) }
        guard let root = armed.pendingRoot else { return .success(NOCResponse(.invalidNOC)) }
        guard Self.isValidAdminSubject(request.caseAdminSubject) else {
            return .success(NOCResponse(.invalidAdminSubject))
        }
        guard let noc = try? OperationalCertificate(tlv: request.noc) else { return .success(NOCResponse(.invalidNOC)) }
        var icac: OperationalCertificate?
        if let bytes = request.icac, !bytes.isEmpty {
            guard let decoded = try? OperationalCertificate(tlv: bytes) else {
                return .success(NOCResponse(.invalidNOC))
            }
            icac = decoded
        }
        guard let chain = try? CertificateChain.verify(noc: noc, icac: icac, rcac: root, policy: .ignoringTime) else {
            return .success(NOCResponse(.invalidNOC))
        }
        guard Self.isOperationalNodeID(chain.nodeID) else { return .success(NOCResponse(.invalidNodeOpID)) }
        guard noc.publicKey == key.publicKey else { return .success(NOCResponse(.invalidPublicKey)) }
        guard !fabrics.contains(where: { $0.rootPublicKey == chain.rootPublicKey && $0.fabricID == chain.fabricID })
        else { return .success(NOCResponse(.fabricConflict)) }
        guard fabrics.count < Self.supportedFabrics,
            let index = (UInt8(1)...254).first(where: { index in !fabrics.contains { $0.index == index } })
        else { return .success(NOCResponse(.tableFull)) }

        fabrics.append(
            Fabric(
                index: index, chain: chain, ipkEpochKey: request.ipkEpochKey, operationalKey: key,
                vendorID: request.adminVendorID))
        accessControl.append(
            AccessControlEntry(
                privilege: AccessControlEntry.administer, authMode: AccessControlEntry.caseAuthMode,
                subjects: [request.caseAdminSubject], fabricIndex: index))
        armed.addedFabricIndex = index
        // Key and root now belong to the fabric (TrustedRootCertificates lists the root once).
        armed.pendingKey = nil
        armed.pendingRoot = nil
        failSafe = armed
        notices.append(.fabricAdded(index: index))
        return .success(NOCResponse(.ok, fabricIndex: index))
    }

    /// UpdateFabricLabel on the accessing fabric; LabelConflict when another fabric has the label.
    public mutating func updateFabricLabel(_ label: String, context: CommandContext) -> NOCResponse {
        advance(to: context.now)
        guard let position = fabrics.firstIndex(where: { $0.index == context.fabricIndex }) else {
            return NOCResponse(.invalidFabricIndex)
        }
        if !label.isEmpty, fabrics.contains(where: { $0.index != context.fabricIndex && $0.label == label }) {
            return NOCResponse(.labelConflict)
        }
        fabrics[position].label = label
        return NOCResponse(.ok, fabricIndex: context.fabricIndex)
    }

    /// RemoveFabric: the fabric and its ACL entries go; InvalidFabricIndex when it is not installed.
    public mutating func removeFabric(_ index: UInt8, context: CommandContext) -> NOCResponse {
        advance(to: context.now)
        guard fabrics.contains(where: { $0.index == index }) else { return NOCResponse(.invalidFabricIndex) }
        fabrics.removeAll { $0.index == index }
        accessControl.removeAll { $0.fabricIndex == index }
        if failSafe?.addedFabricIndex == index { failSafe?.addedFabricIndex = nil }
        if failSafe?.fabricBeforeUpdate?.index == index { failSafe?.fabricBeforeUpdate = nil }
        notices.append(.fabricRemoved(index: index))
        return NOCResponse(.ok, fabricIndex: index)
    }

    /// An operational node id: 0x0000_0000_0000_0001 … 0xFFFF_FFEF_FFFF_FFFF (Matter Core §2.5.5).
    static func isOperationalNodeID(_ id: UInt64) -> Bool { id != 0 && id <= 0xFFFF_FFEF_FFFF_FFFF }

    /// An operational node id or a CASE Authenticated Tag subject (0xFFFF_FFFD_IIII_VVVV, version ≠ 0).
    static func isValidAdminSubject(_ subject: UInt64) -> Bool {
        isOperationalNodeID(subject) || (subject >> 32 == 0xFFFF_FFFD && subject & 0xFFFF != 0)
    }

    /// The certificate's signature verifies with its own public key.
    static func isSelfSigned(_ certificate: OperationalCertificate) -> Bool {
        guard let key = try? P256.Signing.PublicKey(x963Representation: certificate.publicKey),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: certificate.signature)
        else { return false }
        return key.isValidSignature(signature, for: certificate.tbsCertificateDER)
    }
}
