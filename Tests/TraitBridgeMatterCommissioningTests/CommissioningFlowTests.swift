import Crypto
import SwiftASN1
import Testing
import TraitBridgeMatterInteraction
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterCredentials
import X509

/// The sequence python-matter-server's SDK runs for an on-network device (notes §1.2), against the
/// root endpoint, with a commissioner that issues its own RCAC → ICAC → NOC.
@Suite struct CommissioningFlowTests {
    let start = ContinuousClock.now
    let commissioner = TestCommissioner()

    @Test func `the whole commissioning sequence commits fabric 1`() throws {
        var root = RootEndpoint()
        let pase = Session.pase(at: start)
        func invoke(_ cluster: UInt32, _ command: UInt32, _ fields: TLVValue, _ context: CommandContext? = nil)
            -> RootEndpoint.InvokeResult
        {
            root.invoke(endpoint: 0, cluster: cluster, command: command, fields: fields, context: context ?? pase)
        }

        // ReadCommissioningInfo: breadcrumb 0 on a fresh device, VID/PID of the test DAC.
        let unfiltered = RootEndpoint.FabricAccess(accessingFabricIndex: 0, isFabricFiltered: false)
        #expect(try root.read(endpoint: 0, cluster: 0x30, attribute: 0, fabric: unfiltered).get() == .unsigned(0))
        #expect(try root.read(endpoint: 0, cluster: 0x28, attribute: 2, fabric: unfiltered).get() == .unsigned(0xFFF1))
        #expect(try root.read(endpoint: 0, cluster: 0x28, attribute: 4, fabric: unfiltered).get() == .unsigned(0x8001))

        let armed = invoke(
            Command.generalCommissioning, Command.armFailSafe, .contextStructure([0: .unsigned(60), 1: .unsigned(3)]))
        #expect(armed == .response(commandID: 1, fields: .contextStructure([0: .unsigned(0), 1: .string("")])))
        #expect(root.state.breadcrumb == 3)

        let regulatory = invoke(
            Command.generalCommissioning, Command.setRegulatoryConfig,
            .contextStructure([0: .unsigned(0), 1: .string("XX"), 2: .unsigned(5)]))
        #expect(regulatory.commandID == 3)
        #expect(regulatory.fields?[0] == .unsigned(0))

        // Attestation: PAI and DAC chain to the test PAA; the signature covers elements ‖ challenge.
        let pai = try #require(
            invoke(
                Command.operationalCredentials, Command.certificateChainRequest,
                .contextStructure([0: .unsigned(2)])
            ).fields
        ).octets(0)
        let dac = try #require(
            invoke(
                Command.operationalCredentials, Command.certificateChainRequest,
                .contextStructure([0: .unsigned(1)])
            ).fields
        ).octets(0)
        let paa = try Certificate(derEncoded: DeviceAttestation.sdkTestPAACertificate)
        let paiCertificate = try Certificate(derEncoded: pai)
        let dacCertificate = try Certificate(derEncoded: dac)
        #expect(paa.publicKey.isValidSignature(paiCertificate.signature, for: paiCertificate))
        #expect(paiCertificate.publicKey.isValidSignature(dacCertificate.signature, for: dacCertificate))
        let dacKey = try #require(P256.Signing.PublicKey(dacCertificate.publicKey))

        let nonce = [UInt8](repeating: 0xA7, count: 32)
        let attestation = try #require(
            invoke(
                Command.operationalCredentials, Command.attestationRequest,
                .contextStructure([0: .octets(nonce)])
            ).fields)
        let elements = try attestation.octets(0)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try attestation.octets(1, count: 64))
        #expect(dacKey.isValidSignature(signature, for: elements + Session.challenge))
        let decoded = try TLVElement(decoding: elements).value
        #expect(try decoded.octets(2) == nonce)
        #expect(try decoded.octets(1) == DeviceAttestation.sdkTestCredentials.certificationDeclaration)
        #expect(decoded[3] == .unsigned(0))

        // CSR: the NOCSRElements carry a self-signed PKCS#10 CSR, signed again by the DAC.
        let csrNonce = [UInt8](repeating: 0x5C, count: 32)
        let csrReply = try #require(
            invoke(
                Command.operationalCredentials, Command.csrRequest,
                .contextStructure([0: .octets(csrNonce)])
            ).fields)
        let nocsr = try csrReply.octets(0)
        let csrSignature = try P256.Signing.ECDSASignature(rawRepresentation: try csrReply.octets(1, count: 64))
        #expect(dacKey.isValidSignature(csrSignature, for: nocsr + Session.challenge))
        let nocsrElements = try TLVElement(decoding: nocsr).value
        #expect(try nocsrElements.octets(2) == csrNonce)
        let csr = try CertificateSigningRequest(derEncoded: try nocsrElements.octets(1))
        #expect(csr.publicKey.isValidSignature(csr.signature, for: csr))
        let operationalKey = try #require(P256.Signing.PublicKey(csr.publicKey))

        #expect(
            invoke(
                Command.operationalCredentials, Command.addTrustedRootCertificate,
                .contextStructure([0: .octets(commissioner.rcac)])) == .status(.success))
        let roots = try root.read(endpoint: 0, cluster: 0x3E, attribute: 4, fabric: unfiltered).get()
        #expect(roots == .array([.octets(commissioner.rcac)]))
        let noc = try commissioner.noc(for: Array(operationalKey.x963Representation))
        let added = invoke(Command.operationalCredentials, Command.addNOC, commissioner.addNOCFields(noc: noc))
        #expect(added == .response(commandID: 8, fields: .contextStructure([0: .unsigned(0), 1: .unsigned(1)])))

        let fabric = try #require(root.state.fabric(1))
        #expect(fabric.nodeID == commissioner.nodeID && fabric.fabricID == commissioner.fabricID)
        #expect(fabric.operationalKey.publicKey == Array(operationalKey.x963Representation))
        #expect(
            fabric.compressedFabricID
                == (try FabricIdentifiers.compressedFabricID(
                    rootPublicKey: Array(commissioner.rootKey.publicKey.x963Representation),
                    fabricID: commissioner.fabricID)))
        #expect(fabric.ipk != nil)
        #expect(
            root.state.accessControl == [
                AccessControlEntry(
                    privilege: 5, authMode: 2,
                    subjects: [commissioner.adminNodeID], fabricIndex: 1)
            ])

        // CommissioningComplete over CASE on the new fabric commits and disarms.
        let complete = invoke(
            Command.generalCommissioning, Command.commissioningComplete, .contextStructure([:]),
            Session.case(fabricIndex: 1, at: start + .seconds(5)))
        #expect(complete.fields?[0] == .unsigned(0))
        #expect(root.state.failSafe == nil)
        #expect(root.state.breadcrumb == 0)
        #expect(
            root.state.takeNotices() == [
                .failSafeArmed(fabricIndex: 0), .fabricAdded(index: 1), .commissioningCompleted(fabricIndex: 1),
            ])
        // Committed: a later tick past the old deadline removes nothing.
        root.state.advance(to: start + .seconds(3600))
        #expect(root.state.fabrics.count == 1)

        let onFabric = RootEndpoint.FabricAccess(accessingFabricIndex: 1, isFabricFiltered: true)
        #expect(try root.read(endpoint: 0, cluster: 0x3E, attribute: 5, fabric: onFabric).get() == .unsigned(1))
        #expect(try root.read(endpoint: 0, cluster: 0x3E, attribute: 3, fabric: onFabric).get() == .unsigned(1))
        #expect(try root.read(endpoint: 0, cluster: 0x3E, attribute: 4, fabric: onFabric).get() == roots)
        let nocs = try root.read(endpoint: 0, cluster: 0x3E, attribute: 0, fabric: onFabric).get()
        #expect(
            nocs == .array([.contextStructure([1: .octets(noc), 2: .octets(commissioner.icac), 254: .unsigned(1)])]))
        let acl = try root.read(endpoint: 0, cluster: 0x1F, attribute: 0, fabric: onFabric).get()
        #expect(
            acl
                == .array([
                    .contextStructure([
                        1: .unsigned(5), 2: .unsigned(2),
                        3: .array([.unsigned(commissioner.adminNodeID)]), 4: .null, 254: .unsigned(1),
                    ])
                ]))
    }
}
