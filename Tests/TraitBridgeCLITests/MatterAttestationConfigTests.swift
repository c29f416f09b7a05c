import Foundation
import Logging
import Testing
import TraitBridgeJSON
import TraitBridgeMatterCredentials
import TraitBridgeMatterDevice

@testable import TraitBridgeCLI
@testable import TraitBridgeMatterCommissioning

/// `matterBridge.attestation`: a product's DAC, PAI, CD and key from files, checked when the
/// configuration is read (the file and what is wrong, with the JSON path), and served when good.
/// The files here are the SDK's public test credentials, written as a product would ship them.
@Suite("matterBridge attestation files")
struct MatterAttestationConfigTests {
    /// A folder with dac.der, pai.der, cd.der, the DAC key as SEC1 PEM (key.pem) and DER (key.der),
    /// and another P-256 key (other.pem).
    static func files() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appending(path: "tb-attestation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let files: [(String, [UInt8])] = [
            ("dac.der", TestAttestationCredentials.dacCertificate),
            ("pai.der", TestAttestationCredentials.paiCertificate),
            ("cd.der", TestAttestationCredentials.certificationDeclaration),
            ("key.der", sec1(TestAttestationCredentials.dacPrivateKey)),
            ("key.pem", pem(sec1(TestAttestationCredentials.dacPrivateKey))),
            ("other.pem", pem(sec1([UInt8](repeating: 0x11, count: 32)))),
            ("big.der", [UInt8](repeating: 0x30, count: 5000)),
        ]
        for (name, bytes) in files { try Data(bytes).write(to: folder.appending(path: name)) }
        return folder
    }

    /// SEC1 ECPrivateKey { version 1, privateKey, [0] prime256v1 } in DER.
    static func sec1(_ scalar: [UInt8]) -> [UInt8] {
        [0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20] + scalar
            + [0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
    }

    static func pem(_ der: [UInt8]) -> [UInt8] {
        let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return Array("-----BEGIN EC PRIVATE KEY-----\n\(body)\n-----END EC PRIVATE KEY-----\n".utf8)
    }

    /// A configuration whose matterBridge section has `extra` members (JSON text) besides its name.
    static func parse(_ extra: String) -> Result<ServeConfiguration, ConfigurationError> {
        let text = #"{"matterBridge": {"name": "Desk"\#(extra)}}"#
        do { return .success(try ServeConfiguration.parse(Array(text.utf8), path: "c.json")) } catch {
            return .failure(error)
        }
    }

    static func attestation(_ folder: URL, key: String = "key.pem", dac: String = "dac.der", cd: String = "cd.der")
        -> String
    {
        let path = { (name: String) in folder.appending(path: name).path }
        return #", "attestation": {"dac": "\#(path(dac))", "dacKey": "\#(path(key))", "pai": "\#(path("pai.der"))", "#
            + #""cd": "\#(path(cd))"}"#
    }

    @Test("the SDK's test DAC, PAI, CD and key from files: accepted (PEM and DER keys) and served")
    func accepted() async throws {
        let folder = try Self.files()
        defer { try? FileManager.default.removeItem(at: folder) }
        for key in ["key.pem", "key.der"] {
            let ids = #", "vendorId": 65521, "productId": "0x8001""#
            let settings = try #require(
                try Self.parse(Self.attestation(folder, key: key) + ids).get().matterBridge)
            let files = try #require(settings.attestation)
            #expect(files.checked.vendorID == 0xFFF1 && files.checked.productID == 0x8001)
            #expect(files.checked.dacPrivateKey == TestAttestationCredentials.dacPrivateKey)
            #expect(!files.description.contains("aab600"), "the key is never shown")
            #expect(settings.vendorID == 0xFFF1 && settings.productID == 0x8001)
        }
        // Served: the device binds and its root endpoint answers with the files' DAC, PAI and CD.
        let settings = try #require(
            try Self.parse(Self.attestation(folder) + #", "vendorId": 65521, "productId": 32769"#).get()
                .matterBridge)
        let attestation = try #require(settings.attestation).attestation
        var random = SystemRandomNumberGenerator()
        let server = MatterDeviceServer(
            setup: try MatterSetup.random(using: &random), settings: .init(host: "127.0.0.1", port: 0),
            attestation: attestation, logger: Logger(label: "attestation-test") { _ in SwiftLogNoOpLogHandler() })
        let serving = Task { try await server.run() }
        for _ in 0..<100 where server.port == nil { try await Task.sleep(for: .milliseconds(50)) }
        #expect(server.port != nil, "the device did not bind within 5 s")
        serving.cancel()
        // Cancellation ends run(); how it ends is not what this test is about.
        _ = await serving.result
        #expect(server.attestation.certificate(type: 1) == TestAttestationCredentials.dacCertificate)
        #expect(server.attestation.certificate(type: 2) == TestAttestationCredentials.paiCertificate)
        let reply = try server.attestation.attestationResponse(
            nonce: [UInt8](repeating: 1, count: 32), attestationChallenge: [UInt8](repeating: 2, count: 16))
        #expect(reply.signature.count == 64)
    }

    @Test("a DAC or PAI not valid at start (expired, or not yet valid): refused, saying the date")
    func validity() throws {
        func checked(at date: Date) throws -> CheckedAttestation {
            try CheckedAttestation(
                dac: TestAttestationCredentials.dacCertificate, pai: TestAttestationCredentials.paiCertificate,
                certificationDeclaration: TestAttestationCredentials.certificationDeclaration,
                dacKey: Self.pem(Self.sec1(TestAttestationCredentials.dacPrivateKey)), at: date)
        }
        #expect(try checked(at: Date()).vendorID == 0xFFF1)
        // The SDK's test DAC and PAI are valid from 2022-02-05 to 9999-12-31.
        let early = Date(timeIntervalSince1970: 1_600_000_000)  // 2020-09-13
        #expect {
            _ = try checked(at: early)
        } throws: { error in
            "\(error)".contains("the DAC is valid only from 2022-02-05") && "\(error)".contains("clock says 2020-09-13")
        }
        let late = Date(timeIntervalSince1970: 253_402_387_200)  // 10000-01-02
        #expect {
            _ = try checked(at: late)
        } throws: { error in
            "\(error)".contains("the DAC expired on 9999-12-31: controllers refuse it")
        }
    }

    @Test("a missing file, a key not the DAC's, a mismatched vendor or product: refused with path and file")
    func refused() throws {
        let folder = try Self.files()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ids = #", "vendorId": 65521, "productId": 32769"#
        let refusals: [(String, String)] = [
            (
                Self.attestation(folder, dac: "missing.der") + ids,
                "matterBridge.attestation.dac: cannot read the file '\(folder.appending(path: "missing.der").path)'"
            ),
            (
                Self.attestation(folder, key: "other.pem") + ids,
                "matterBridge.attestation.dacKey: '\(folder.appending(path: "other.pem").path)': this is not the "
                    + "DAC's private key"
            ),
            (
                Self.attestation(folder, key: "dac.der") + ids,
                "matterBridge.attestation.dacKey: '\(folder.appending(path: "dac.der").path)': not a P-256 private key"
            ),
            (Self.attestation(folder, dac: "pai.der") + ids, "matterBridge.attestation.dacKey: "),
            (Self.attestation(folder, cd: "dac.der") + ids, "matterBridge.attestation.cd: "),
            (Self.attestation(folder, dac: "big.der") + ids, "matterBridge.attestation.dac: '"),
            (
                Self.attestation(folder) + #", "vendorId": 4660, "productId": 32769"#,
                "matterBridge.vendorId: 0x1234 is not the DAC's 0xFFF1"
            ),
            (
                Self.attestation(folder) + #", "vendorId": 65521, "productId": 32770"#,
                "matterBridge.productId: 0x8002 is not the DAC's 0x8001"
            ),
            (Self.attestation(folder), #"matterBridge: give "vendorId": 0xFFF1"#),
            (#", "vendorId": 4660"#, "matterBridge.vendorId: 0x1234 is not the SDK's test DAC (used without"),
            (#", "productId": "0x""#, "matterBridge.productId: expected the DAC's product id"),
            (#", "attestation": {"dac": "x"}"#, "matterBridge.attestation.dac: cannot read the file 'x'"),
            (#", "attestation": {"pem": "x"}"#, "matterBridge.attestation.pem: unknown key 'pem'; allowed: dac"),
        ]
        for (extra, message) in refusals {
            guard case .failure(let error) = Self.parse(extra) else {
                Issue.record("accepted: \(extra)")
                continue
            }
            #expect(error.description.contains(message), "\(extra): \(error)")
        }
        // Without attestation, the test DAC's ids are accepted.
        let plain = try #require(try Self.parse(#", "vendorId": "0xFFF1", "productId": 32769"#).get().matterBridge)
        #expect(plain.vendorID == 0xFFF1 && plain.attestation == nil)
    }
}
