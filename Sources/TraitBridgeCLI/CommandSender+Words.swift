import ArgumentParser
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgePresentation

extension CommandSender {
    /// A device as its state and description payloads describe it: what `set` reads a person's
    /// input against (`21.5°C`, `auto`, `40 % open`) and how an outcome's values are said.
    struct Described {
        var state: JSON?
        var description: JSON?

        /// The command with a written value in a person's form turned into the model's; a value the
        /// device's metadata refuses is refused here, in the person's unit (exit 1), before it is sent.
        func reading(_ command: JSONObject) throws -> JSONObject {
            guard case .string(let trait)? = command["trait"], case .string(let attribute)? = command["attribute"],
                let given = command["value"], let type = typeKey(command["deviceType"]?.stringValue, trait: trait),
                let metadata = PeoplesWords.metadata(description, type: type, trait: trait, attribute: attribute)
            else { return command }
            let key = ValuePresenter.key(trait: trait, attribute: attribute)
            var value = AttributeValue(jsonValue: given)
            var asSent = true
            if case .string(let text) = given {
                do throws(InputRefusal) {
                    if let read = try PeoplesWords.presenter.read(text, of: key, metadata: metadata) {
                        value = read
                        asSent = false
                    }
                } catch {
                    printError("valueOutOfRange: \(error)")
                    throw ExitCode.failure
                }
            }
            // A number or a word the metadata refuses: said here in the person's unit, with the code the
            // bridge would give (a read-only attribute, or a value of the wrong kind: the bridge says).
            do throws(AttributeValidationError) { try metadata.validate(value) } catch {
                if value.numericValue != nil || metadata.validValues != nil,
                    let refusal = PeoplesWords.presenter.refusal(value, of: key, metadata: metadata, asSent: asSent)
                {
                    printError("\(error.code): \(refusal)")
                    throw ExitCode.failure
                }
            }
            var read = command
            read["value"] = value.jsonValue
            return read
        }

        /// `Power on (light/matter.OnOff.onOff = true)`: an outcome's `type/trait.attribute` and value.
        func line(_ path: String, _ value: JSONValue) -> String {
            let raw = "\(path) = \(value.serialized())"
            guard let slash = path.firstIndex(of: "/"), let dot = path.lastIndex(of: "."), slash < dot else {
                return raw
            }
            let type = String(path[..<slash])
            let trait = String(path[path.index(after: slash)..<dot])
            let attribute = String(path[path.index(after: dot)...])
            let metadata = PeoplesWords.metadata(description, type: type, trait: trait, attribute: attribute)
            let key = ValuePresenter.key(trait: trait, attribute: attribute)
            return "\(PeoplesWords.presenter.name(of: key)) "
                + "\(PeoplesWords.text(value, trait: trait, attribute: attribute, metadata: metadata)) (\(raw))"
        }

        /// The device type key the command goes to: the one named, else the first that has the trait.
        private func typeKey(_ named: String?, trait: String) -> String? {
            if let named { return named }
            return state?["types"]?.members.first { $0.value["traits"]?[trait] != nil }?.key
        }
    }
}
