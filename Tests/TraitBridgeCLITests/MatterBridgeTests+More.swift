import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeMQTT
import TraitBridgeMatterCommissioning
import TraitBridgeTesting

/// The Matter bridge end to end, continued: a partially online device (Home Assistant discovery's
/// entities, each with its own availability) and a second bridge past `devicesPerBridge`.
extension MatterBridgeTests {
    /// Home Assistant discovery's "Garden": a lamp and a gate sensor, each entity with its own availability.
    static let garden = "ha-garden-1"

    static func publishGarden(_ observer: TestMQTTClient) throws {
        let device = #""device":{"identifiers":["garden-1"],"name":"Garden"}"#
        let retained = [
            (
                "homeassistant/light/garden/lamp/config",
                #"{"name":"Lamp","unique_id":"garden_lamp","schema":"json","command_topic":"garden/lamp/set","#
                    + #""state_topic":"garden/lamp/state","availability_topic":"garden/lamp/availability",\#(device)}"#
            ),
            (
                "homeassistant/binary_sensor/garden/gate/config",
                #"{"name":"Gate","unique_id":"garden_gate","device_class":"door","state_topic":"garden/gate/state","#
                    + #""availability_topic":"garden/gate/availability",\#(device)}"#
            ),
            ("garden/lamp/availability", "online"), ("garden/gate/availability", "online"),
            ("garden/lamp/state", #"{"state":"OFF"}"#), ("garden/gate/state", "ON"),
        ]
        for (topic, payload) in retained { try observer.publish(topic, payload, retain: true) }
    }

    /// The Garden's lamp goes offline, its gate stays: the device is partially online, its endpoint Reachable,
    /// the lamp's command refused with a status (never a silent success), the gate still read.
    static func partiallyOnline(
        _ matterServer: MatterServerPeer, found: [String: Any], observer: TestMQTTClient, _ diagnostics: () -> String
    ) async throws {
        let top = try #require(Self.endpoint(named: "Garden", in: found), "no Garden: \(Self.summary(found))")
        let parts = found["\(top)/29/3"] as? [Int] ?? []
        let lamp = try #require(
            parts.first { Self.deviceTypes(of: $0, in: found).contains(0x0100) }, "the Garden's parts: \(parts)")
        let gate = try #require(parts.first { Self.deviceTypes(of: $0, in: found).contains(0x0015) }, "\(parts)")
        try observer.publish("garden/lamp/availability", "offline", retain: true)
        #expect(
            observer.waitFor("traitbridge/devices/\(Self.garden)/state", timeout: .seconds(15)) {
                $0.payloadText.contains("partiallyOnline")
            } != nil, "the Garden is partially online: \(diagnostics())")
        let reachable = try await Self.ask(
            matterServer, "read_attribute", #"{"node_id":1,"attribute_path":"\#(top)/57/17"}"#)
        #expect(Self.says(reachable, "\(top)/57/17", "true"), "partially online is reachable: \(reachable)")
        let toggle = #"{"node_id":1,"endpoint_id":\#(lamp),"cluster_id":6,"command_name":"Toggle","payload":{}}"#
        let refused = try await Self.ask(matterServer, "device_command", toggle)
        print("Matter Server device_command to the Garden's offline lamp: \(refused.prefix(300))")
        #expect(refused.contains("error_code"), "the offline lamp's command is refused: \(refused)\n\(diagnostics())")
        #expect(!observer.messages.all.contains { $0.topic == "garden/lamp/set" }, "nothing was sent to the lamp")
        let door = try await Self.ask(
            matterServer, "read_attribute", #"{"node_id":1,"attribute_path":"\#(gate)/69/0"}"#)
        #expect(door.contains(#""\#(gate)/69/0""#) && !door.contains("error_code"), "the gate still reads: \(door)")
        try observer.publish("garden/lamp/availability", "online", retain: true)
    }

    /// A device paired while bridge 1 is full (devicesPerBridge): bridge 2 starts with it, its own node with
    /// its own codes, name and UniqueID; the Matter Server commissions it as a second node and finds the device.
    static func secondBridge(
        _ matterServer: MatterServerPeer, bed: HomeKitTestBed, observer: TestMQTTClient, serveLog: String,
        _ diagnostics: () -> String
    ) async throws {
        var list =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: bed.folder.appendingPathComponent("z2m-devices.json"))) as? [[String: Any]] ?? []
        // The list as zigbee2mqtt gives it now: the Side door paired earlier, and the Garage door.
        let back = try #require(list.first { $0["friendly_name"] as? String == "Back door" })
        for (name, address) in [("Side door", "0x00158d0001000099"), ("Garage door", "0x00158d0001000098")] {
            var paired = back
            paired["friendly_name"] = name
            paired["ieee_address"] = address
            list.append(paired)
        }
        try observer.publish(
            "zigbee2mqtt/bridge/devices",
            String(decoding: try JSONSerialization.data(withJSONObject: list), as: UTF8.self),
            retain: true)
        #expect(
            eventually(timeout: .seconds(20)) { LogFile.read(serveLog).contains("bridge 2 starts") }, "\(diagnostics())"
        )
        let data = bed.folder.appendingPathComponent("data").path
        var shown = ""
        for attempt in 0..<20 where !shown.contains("Garage") && !shown.contains("0x00158d0001000098") {
            if attempt > 0 { try await Task.sleep(for: .milliseconds(500)) }
            shown = try CommandRunner.run(["matter", "show", "--bridge", "2", "--data-dir", data]).standardOutput
        }
        #expect(shown.hasPrefix("bridge 2\n") && shown.contains("not commissioned"), "\(shown)")
        let passcodeLine = shown.split(separator: "\n").first { $0.hasPrefix("passcode") } ?? ""
        let passcode = try #require(Int(passcodeLine.split(separator: " ").last ?? ""), "\(shown)")
        #expect(passcode != Self.passcode, "bridge 2 has a passcode of its own")
        let both = try CommandRunner.run(["matter", "show", "--data-dir", data]).standardOutput
        #expect(both.hasPrefix("bridge 1 of 2\n") && both.contains("\nbridge 2 of 2\n"), "\(both)")
        let commissioned =
            try await matterServer.sendPolled([MatterServerPeer.commissionCommand(passcode: passcode, address: nil)])
            .first ?? ""
        #expect(Self.says(commissioned, "node_id", "2"), "\(commissioned.prefix(600))\n\(diagnostics())")
        let found = Self.attributes(commissioned)
        #expect(commissioned.contains(#""Hall bridge 2""#), "bridge 2's NodeLabel: \(Self.summary(found))")
        let door = try #require(Self.endpoint(named: "Garage door", in: found), "\(Self.summary(found))")
        #expect(Self.deviceTypes(of: door, in: found).contains(0x0015), "a Contact Sensor on bridge 2")
        #expect(Self.endpoint(named: "Hall light", in: found) == nil, "bridge 1's devices stay on bridge 1")
        #expect((found["0/40/18"] as? String ?? "").hasPrefix("TRAITBRIDGE-"), "bridge 2's own UniqueID")
    }
}
