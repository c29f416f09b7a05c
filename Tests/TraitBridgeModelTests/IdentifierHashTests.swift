import Foundation
import Testing
import TraitBridgeModel

/// The identifiers the message path looks up many times a message keep their text's hash, made
/// once: equal texts are equal keys, however they were made (parsed, derived, decoded, changed).
@Suite("Identifiers' kept hashes")
struct IdentifierHashTests {
    @Test("a device id: made, derived and decoded alike are one key; different texts are different keys")
    func deviceID() throws {
        let made = try DeviceID("z2m-0x00158d0001000001")
        let derived = DeviceID.derived(source: "z2m", nativeID: "0x00158D0001000001")
        let decoded = try JSONDecoder().decode(DeviceID.self, from: Data(#""z2m-0x00158d0001000001""#.utf8))
        #expect(made == derived && made == decoded && made.hashValue == derived.hashValue)
        #expect(made.hashValue == decoded.hashValue)
        let table = [made: "light"]
        #expect(table[derived] == "light" && table[decoded] == "light")
        let other = try DeviceID("z2m-0x00158d0001000002")
        #expect(other != made && table[other] == nil)
        #expect(String(decoding: try JSONEncoder().encode(made), as: UTF8.self) == #""z2m-0x00158d0001000001""#)
        // Ten thousand ids: as many distinct keys.
        let many = Set((0..<10_000).map { DeviceID.derived(source: "z2m", nativeID: String($0)) })
        #expect(many.count == 10_000)
    }

    @Test("a source reference: the three parts count, each in its place; a changed part is a new key")
    func sourceReference() throws {
        let reference = SourceReference(family: "zigbee2mqtt", instance: "default", nativeID: "0x01")
        let table = [reference: 1]
        #expect(table[SourceReference(family: "zigbee2mqtt", instance: "default", nativeID: "0x01")] == 1)
        // The same letters in other parts are another reference.
        #expect(table[SourceReference(family: "zigbee2mqttdefault", instance: "", nativeID: "0x01")] == nil)
        #expect(table[SourceReference(family: "zigbee2mqtt", instance: "default0x01", nativeID: "")] == nil)
        var changed = reference
        changed.nativeID = "0x02"
        #expect(changed != reference && table[changed] == nil)
        #expect(changed == SourceReference(family: "zigbee2mqtt", instance: "default", nativeID: "0x02"))
        #expect(
            changed.hashValue == SourceReference(family: "zigbee2mqtt", instance: "default", nativeID: "0x02").hashValue
        )
        changed.nativeID = "0x01"
        #expect(table[changed] == 1, "changed back: the same key again")
        let encoded = try JSONEncoder().encode(reference)
        let text = String(decoding: encoded, as: UTF8.self)
        #expect(text.contains(#""nativeID":"0x01""#) && !text.contains("Hash"), "\(text)")
        let decoded = try JSONDecoder().decode(SourceReference.self, from: encoded)
        #expect(decoded == reference && table[decoded] == 1)
    }
}
