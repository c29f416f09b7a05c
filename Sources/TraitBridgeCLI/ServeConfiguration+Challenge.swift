import Foundation
import TraitBridgeCloud
import TraitBridgeJSON

extension ServeConfiguration {
    static let challengeKeys = [
        "pinFile", "pinEnv", "secureActions", "pinDevices", "ackDevices", "maxFailedPins", "lockoutSeconds",
    ]

    /// `http.challenge`: the PIN (from a file or the environment, never the config itself) and which
    /// EXECUTE commands need it or a yes. Without a PIN, secure actions ask for a yes.
    static func parseChallenge(_ value: JSON, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError)
        throws(ConfigurationError) -> ChallengeRules
    {
        guard value.kind == .object else {
            throw fail(at, "expected an object with \(challengeKeys.joined(separator: ", "))")
        }
        var rules = ChallengeRules()
        var secureActions: String?
        for (key, field) in value.members {
            let fieldAt = at.appending(key)
            switch key {
            case "pinFile", "pinEnv":
                rules.pin = try readPIN(field, key: key, at: fieldAt, fail: fail)
            case "secureActions":
                guard let word = field.string, ["pin", "ack", "none"].contains(word) else {
                    throw fail(fieldAt, #"expected "pin", "ack" or "none""#)
                }
                secureActions = word
            case "pinDevices", "ackDevices":
                let match = try parseMatch(field, at: fieldAt, fail: fail)
                if key == "pinDevices" { rules.pinDevices = match } else { rules.ackDevices = match }
            case "maxFailedPins":
                guard let number = field.int64, (1...100).contains(number) else {
                    throw fail(fieldAt, "expected a whole number from 1 to 100")
                }
                rules.maxFailedPins = Int(number)
            case "lockoutSeconds":
                guard let number = field.int64, (1...86_400).contains(number) else {
                    throw fail(fieldAt, "expected whole seconds from 1 to 86400")
                }
                rules.lockoutSeconds = Double(number)
            default:
                throw fail(fieldAt, "unknown key '\(key)'; allowed: \(challengeKeys.joined(separator: ", "))")
            }
        }
        switch secureActions ?? (rules.pin == nil ? "ack" : "pin") {
        case "pin": rules.secureActions = .pin
        case "ack": rules.secureActions = .ack
        default: rules.secureActions = nil
        }
        if rules.pin == nil && (rules.secureActions == .pin || !rules.pinDevices.isEmpty) {
            throw fail(at, #"a PIN challenge needs the PIN: give pinFile or pinEnv (or "secureActions": "ack")"#)
        }
        return rules
    }

    /// The PIN from the file or environment variable `field` names: 4 to 16 digits. A malformed
    /// one is refused without being shown (it may still be someone's real PIN).
    private static func readPIN(
        _ field: JSON, key: String, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError
    ) throws(ConfigurationError) -> String {
        guard let name = field.string, !name.isEmpty else { throw fail(at, "expected a non-empty string") }
        let pin: String
        if key == "pinFile" {
            guard let contents = try? String(contentsOfFile: name, encoding: .utf8) else {
                throw fail(at, "cannot read the file '\(name)'")
            }
            pin = contents.trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            guard let variable = ProcessInfo.processInfo.environment[name], !variable.isEmpty else {
                throw fail(at, "environment variable \(name) is not set")
            }
            pin = variable
        }
        guard (4...16).contains(pin.count), pin.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw fail(at, "the PIN must be 4 to 16 digits (the user speaks it to the Assistant)")
        }
        return pin
    }
}
