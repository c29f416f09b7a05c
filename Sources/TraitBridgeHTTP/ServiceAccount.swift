import Crypto
import Foundation
public import FoundationEssentials
import TraitBridgeJSON
import _CryptoExtras

/// A Google service-account key file, the way Home Graph is called: its client email signs a JWT
/// with its RSA key (RS256), and the JWT is exchanged at its `token_uri` for an access token.
public struct ServiceAccount: Sendable {
    public var clientEmail: String
    public var tokenURI: String
    public var keyID: String?
    let privateKey: _RSA.Signing.PrivateKey
    static let scope = "https://www.googleapis.com/auth/homegraph"

    /// Reads the key file; the error names the file and the field.
    public init(path: String) throws(FulfillmentSetupError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, what: "service-account key file")
        }
        let root: JSON
        do { root = try JSONDocument.parse([UInt8](data)).root } catch {
            throw .badLine(path: path, line: error.line, reason: "not JSON: \(error.reason)")
        }
        func field(_ name: String) throws(FulfillmentSetupError) -> String {
            guard let text = root[name]?.string, !text.isEmpty else {
                throw .badKey(path: path, reason: "\(name) is missing; download the key again from the Cloud console")
            }
            return text
        }
        clientEmail = try field("client_email")
        tokenURI = try field("token_uri")
        keyID = root["private_key_id"]?.string
        do {
            privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: try field("private_key"))
        } catch let error as FulfillmentSetupError {
            throw error
        } catch {
            throw .badKey(path: path, reason: "private_key is not an RSA key in PEM")
        }
    }

    /// The signed assertion for the token endpoint (RFC 7523), valid for an hour from `now`.
    public func assertion(now: Date) throws -> String {
        let issued = Int64(now.timeIntervalSince1970.rounded(.down))
        var header: JSONObject = ["alg": "RS256", "typ": "JWT"]
        if let keyID { header.append("kid", .string(keyID)) }
        let claims: JSONObject = [
            "iss": .string(clientEmail), "scope": .string(Self.scope), "aud": .string(tokenURI),
            "iat": .int(issued), "exp": .int(issued + 3600),
        ]
        let signingInput =
            Self.base64URL(JSONValue.object(header).serializedBytes()) + "."
            + Self.base64URL(JSONValue.object(claims).serializedBytes())
        let signature = try privateKey.signature(for: Array(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + Self.base64URL([UInt8](signature.rawRepresentation))
    }

    /// base64url without padding (RFC 7515 §2).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
