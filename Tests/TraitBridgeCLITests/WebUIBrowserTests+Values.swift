import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgePresentation

extension WebUIBrowserTests {
    /// The shipped presentation table, as `serve` reads it.
    static let presenter = ValuePresenter(
        table: try! PresentationTable.load(mappingsDirectory: CommandRunner.repository + "/mappings", catalog: nil))

    /// Every value on every card is the API's value of that attribute in people's words (read just
    /// before or just after the cards); the controls' changes reached the devices; the partially
    /// online Hall light says which part is unreachable and why.
    static func checkCardValues(_ found: [String: Any]) throws {
        let cards = found["cardValues"] as? [String: [String: String]] ?? [:]
        let documents = [found["apiBefore"], found["apiAfter"]].map { ($0 as? [String: Any]) ?? [:] }
        #expect(cards.count >= 14, "\(cards.keys)")
        var compared = 0
        for (device, values) in cards {
            for (key, shown) in values {
                let expected = documents.flatMap { words(key, in: $0[device]) }
                #expect(expected.contains(shown), "\(device) \(key): the card says '\(shown)', the API \(expected)")
                compared += 1
            }
        }
        #expect(compared >= 25, "the demo's cards show at least 25 values: \(cards)")
        #expect(cards.values.contains { $0["matter.TemperatureMeasurement.measuredValue"]?.hasSuffix(" °C") == true })
        let hall = found["hallLightCard"] as? String ?? ""
        #expect(
            hall.contains("Unreachable: light (") && hall.contains("On/off")
                && hall.contains("availability topic zigbee2mqtt/Hall light/availability said offline"), "\(hall)")

        for key in ["setpointStatus", "lockStatus", "blindsStatus"] {
            #expect(found[key] as? String == "Confirmed", "\(key): \(found[key] ?? "")")
        }
        let changed = found["apiChanged"] as? [String: Any] ?? [:]
        let before = (found["setpointBefore"] as? String).flatMap { Double($0.prefix { $0 != " " }) }
        let after = words("matter.Thermostat.occupiedHeatingSetpoint", in: changed["Bedroom radiator"])
        let raised = found["setpointAfter"] as? String
        let said = "+ raised the setpoint half a degree: \(found["setpointBefore"] ?? "") → \(raised ?? ""), "
        #expect(
            before.map { ValuePresenter.number($0 + 0.5, decimals: 1) + " °C" } == raised
                && after.contains(raised ?? "?"), "\(said)the device says \(after)")
        #expect(words("matter.DoorLock.lockState", in: changed["Front door lock"]).contains("locked"))
        #expect(
            raw("matter.WindowCovering.currentPositionLiftPercent100ths", in: changed["Living room blinds"])
                .contains(.int(6000)), "40 % open is 6000 hundredths closed on the device")
    }

    /// The words of every value of `trait.attribute` in an API device document (every device type
    /// that has it).
    static func words(_ key: String, in document: Any?) -> [String] {
        places(key, in: document).map { value, metadata in presenter.text(value, of: key, metadata: metadata) }
    }

    static func raw(_ key: String, in document: Any?) -> [AttributeValue] { places(key, in: document).map(\.0) }

    private static func places(_ key: String, in document: Any?) -> [(AttributeValue, AttributeMetadata?)] {
        guard let object = document, let data = try? JSONSerialization.data(withJSONObject: object),
            let root = try? JSONDocument.parse([UInt8](data)).root.value, let dot = key.lastIndex(of: ".")
        else { return [] }
        let trait = String(key[..<dot])
        let attribute = String(key[key.index(after: dot)...])
        guard case .object(let types)? = root["state"]?["types"] else { return [] }
        return types.members.compactMap { type, body in
            guard let value = body["traits"]?[trait]?["attributes"]?[attribute] else { return nil }
            let metadata = root["description"]?["types"]?[type]?["traits"]?[trait]?["attributes"]?[attribute]
                .flatMap(AttributeMetadata.init(described:))
            return (AttributeValue(jsonValue: value), metadata)
        }
    }
}
