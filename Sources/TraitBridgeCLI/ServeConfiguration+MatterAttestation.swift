import Foundation
import TraitBridgeJSON
import TraitBridgeMatterCommissioning
import TraitBridgeMatterCredentials

/// `matterBridge.attestation`: a product's own DAC, PAI, Certification Declaration and DAC key, read
/// and checked (``CheckedAttestation``) when the configuration is, so a wrong file stops serve at
/// start with the file and what is wrong rather than at a commissioner's AttestationVerification.
struct MatterAttestationFiles: Sendable, Hashable, CustomStringConvertible {
    var dac: String
    var dacKey: String
    var pai: String
    var cd: String
    /// What the files hold, checked; compared and printed by the paths only (it holds the key).
    let checked: CheckedAttestation

    /// The root endpoint's attestation.
    var attestation: DeviceAttestation {
        DeviceAttestation(
            dacCertificate: checked.dacCertificate, paiCertificate: checked.paiCertificate,
            certificationDeclaration: checked.certificationDeclaration, dacPrivateKey: checked.dacPrivateKey)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        (lhs.dac, lhs.dacKey, lhs.pai, lhs.cd) == (rhs.dac, rhs.dacKey, rhs.pai, rhs.cd)
    }

    func hash(into hasher: inout Hasher) {
        for path in [dac, dacKey, pai, cd] { hasher.combine(path) }
    }

    var description: String { "attestation(dac \(dac), pai \(pai), cd \(cd), key \(dacKey))" }
}

extension ServeConfiguration {
    static let matterAttestationKeys = ["dac", "dacKey", "pai", "cd"]
    /// The SDK test DAC's ids: BasicInformation's without an `attestation`.
    static let testVendorID: UInt16 = 0xFFF1
    static let testProductID: UInt16 = 0x8001
    /// No attestation file is longer (a PEM key with comments included); larger ones are not read.
    static let maximumAttestationFile = CheckedAttestation.maximumKeyLength

    /// `{"dac", "dacKey", "pai", "cd"}`: paths of the DER DAC and PAI, the DAC's private key (PEM or
    /// DER, PKCS#8 or SEC1) and the CMS-signed CD; each file read (bounded) and the set checked.
    static func parseMatterAttestation(
        _ value: JSON, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError
    ) throws(ConfigurationError) -> MatterAttestationFiles {
        let allowed = matterAttestationKeys.joined(separator: ", ")
        guard value.kind == .object else { throw fail(at, "expected an object with \(allowed) (file paths)") }
        var paths: [String: String] = [:]
        var contents: [String: [UInt8]] = [:]
        for (key, member) in value.members where !key.hasPrefix("$") {
            let keyAt = at.appending(key)
            guard matterAttestationKeys.contains(key) else {
                throw fail(keyAt, "unknown key '\(key)'; allowed: \(allowed)")
            }
            guard let path = member.string, !path.isEmpty else { throw fail(keyAt, "expected a file path") }
            paths[key] = path
            contents[key] = try readAttestationFile(path, at: keyAt, fail: fail)
        }
        guard let dac = paths["dac"], let dacKey = paths["dacKey"], let pai = paths["pai"], let cd = paths["cd"] else {
            let missing = matterAttestationKeys.filter { paths[$0] == nil }.joined(separator: ", ")
            throw fail(at, "give \(missing): a product's attestation is the DAC, its key, the PAI and the CD")
        }
        do {
            let checked = try CheckedAttestation(
                dac: contents["dac"] ?? [], pai: contents["pai"] ?? [],
                certificationDeclaration: contents["cd"] ?? [], dacKey: contents["dacKey"] ?? [])
            return MatterAttestationFiles(dac: dac, dacKey: dacKey, pai: pai, cd: cd, checked: checked)
        } catch {
            let key =
                switch error.part {
                case .dac: "dac"
                case .dacKey: "dacKey"
                case .pai: "pai"
                case .certificationDeclaration: "cd"
                }
            throw fail(at.appending(key), "'\(paths[key] ?? "")': \(error.reason)")
        }
    }

    /// A file's bytes, at most ``maximumAttestationFile`` of them.
    private static func readAttestationFile(
        _ path: String, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError
    ) throws(ConfigurationError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw fail(at, "cannot read the file '\(path)'") }
        defer { try? handle.close() }
        let data: Data
        do { data = try handle.read(upToCount: maximumAttestationFile + 1) ?? Data() } catch {
            throw fail(at, "cannot read the file '\(path)': \(error)")
        }
        guard data.count <= maximumAttestationFile else {
            throw fail(at, "'\(path)' is over \(maximumAttestationFile) bytes: not a Matter certificate, CD or key")
        }
        return Array(data)
    }

    /// A vendor or product id: a number, or a string of hex digits after "0x" ("0xFFF1").
    static func parseMatterID(_ value: JSON) -> UInt16? {
        if let number = value.int64 { return UInt16(exactly: number) }
        guard let text = value.string, text.hasPrefix("0x") || text.hasPrefix("0X") else { return nil }
        return UInt16(text.dropFirst(2), radix: 16)
    }

    /// BasicInformation's VendorID and ProductID must be the DAC's (and so the CD's): a commissioner
    /// refuses the device otherwise. With an `attestation` both are required.
    static func checkMatterIDs(
        _ settings: MatterBridgeSettings, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError
    ) throws(ConfigurationError) {
        let checked = settings.attestation?.checked
        let source = checked == nil ? "the SDK's test DAC (used without \"attestation\")" : "the DAC"
        let expected = [
            ("vendorId", settings.vendorID, checked?.vendorID ?? testVendorID),
            ("productId", settings.productID, checked?.productID ?? testProductID),
        ]
        for (key, given, wanted) in expected {
            guard let given else {
                guard checked == nil else {
                    throw fail(at, "give \"\(key)\": \(hexID(wanted)), \(source)'s, as BasicInformation's")
                }
                continue
            }
            guard given == wanted else {
                throw fail(
                    at.appending(key),
                    "\(hexID(given)) is not \(source)'s \(hexID(wanted)); Basic Information must say what the DAC "
                        + "and CD say or commissioners refuse the device: set \(hexID(wanted)), or give the "
                        + "attestation files of product \(hexID(given))")
            }
        }
    }

    private static func hexID(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
