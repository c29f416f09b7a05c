import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources
import TraitBridgeTesting

/// Every setting of a camera (Google's CameraAvStreamManagement) through the engine: a camera whose
/// settings a generic mapping binds to one JSON state topic and one command topic, each written with
/// the unified command, sent in the source's form, confirmed by the echo; each out-of-range value
/// refused by the attribute's metadata before anything is sent.
@Suite("Camera settings through the engine")
struct CameraSettingsStateTests {
    static let settings: [(attribute: String, path: String)] = [
        ("microphoneMuted", "mic_muted"), ("recordingMicrophoneMuted", "rec_mic_muted"),
        ("speakerVolumeLevel", "volume"), ("imageRotation", "rotation"), ("nightVision", "night"),
        ("statusLightBrightness", "led"), ("viewport", "crop"),
    ]

    static var mapping: String {
        let traits = settings.map { setting in
            #"{"trait": "google.CameraAvStreamManagement", "attribute": "\#(setting.attribute)", "#
                + #""state": {"topic": "cam/state", "jsonPath": "\#(setting.path)"}, "#
                + #""command": {"topic": "cam/set", "payload": "{\"\#(setting.path)\": {{value}}}"}}"#
        }
        return #"{"devices": [{"id": "cam", "name": "Porch camera", "deviceTypes": [{"key": "camera", "#
            + #""type": "google.Camera", "primary": true, "traits": [\#(traits.joined(separator: ", "))]}]}]}"#
    }

    func state() throws -> BridgeState {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-camset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("generic"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.mapping.write(
            to: folder.appendingPathComponent("generic/camera.json"), atomically: true, encoding: .utf8)
        var (catalog, tables) = try EngineFixtures.mappings.get()
        tables[GenericFamily().name] = try GenericDevicesLoader.load(mappingsDirectory: folder.path, catalog: catalog)
        var state = BridgeState(
            configuration: BridgeConfiguration(brokerDescription: "mqtt://127.0.0.1:1883", sources: [.generic]),
            catalog: catalog, tables: tables, graph: try HomeGraph(), now: Date())
        _ = state.brokerConnected(now: Date())
        return state
    }

    @Test("each setting round-trips: sent as the source writes it, confirmed by its echo; enumerations by label")
    func roundTrips() throws {
        var state = try state()
        var current: [String: String] = [
            "mic_muted": "false", "rec_mic_muted": "false", "volume": "100", "rotation": "0", "night": "2", "led": "0",
            "crop": #"{"x1":0,"y1":0,"x2":1920,"y2":1080}"#,
        ]
        func report() -> BridgeEffects {
            let body = current.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }
            return state.receive("cam/state", "{\(body.joined(separator: ", "))}")
        }
        _ = report()
        let writes: [(attribute: String, value: String, sent: String)] = [
            ("microphoneMuted", "true", "true"), ("recordingMicrophoneMuted", "true", "true"),
            ("speakerVolumeLevel", "254", "254"), ("imageRotation", "180", "180"), ("nightVision", #""off""#, "0"),
            ("statusLightBrightness", #""High""#, "3"), ("viewport", #"{"x1":100,"y1":50,"x2":1280,"y2":720}"#, ""),
        ]
        for (index, write) in writes.enumerated() {
            let path = Self.settings.first { $0.attribute == write.attribute }?.path ?? "?"
            let id = "s\(index)"
            let sent = state.receive(
                "traitbridge/devices/generic-cam/set",
                #"{"id":"\#(id)","trait":"google.CameraAvStreamManagement","attribute":"\#(write.attribute)","#
                    + #""value":\#(write.value)}"#)
            let payload = try #require(
                sent.publications.first { $0.topic == "cam/set" }?.payload, "\(write.attribute): \(sent.logs)")
            let command = try JSONDocument.parse(payload).root
            let value = try #require(command[path], "\(write.attribute): \(String(decoding: payload, as: UTF8.self))")
            if write.sent.isEmpty {
                #expect(value["x2"]?.int64 == 1280, "the viewport goes whole")
            } else {
                #expect(
                    value.value.serialized() == write.sent, "\(write.attribute) sent as \(value.value.serialized())")
            }
            current[path] = value.value.serialized()
            let echo = report()
            let result = echo.last("traitbridge/devices/generic-cam/set/result")
            #expect(result?["status"]?.string == "confirmed" && result?["id"]?.string == id, "\(write.attribute)")
        }
    }

    @Test("out of range, not a label, the wrong kind: refused by the metadata, nothing sent")
    func refusals() throws {
        var state = try state()
        _ = state.receive("cam/state", #"{"night": 2, "volume": 10}"#)
        let cases: [(attribute: String, value: String, says: String)] = [
            ("imageRotation", "90", "not one of"), ("speakerVolumeLevel", "255", "254"),
            ("nightVision", "3", "not one of"), ("nightVision", #""dim""#, "not one of"),
            ("statusLightBrightness", "4", "not one of"), ("microphoneMuted", #""yes""#, "bool"),
            ("viewport", "7", "struct"),
        ]
        for (index, refused) in cases.enumerated() {
            let sent = state.receive(
                "traitbridge/devices/generic-cam/set",
                #"{"id":"r\#(index)","trait":"google.CameraAvStreamManagement","attribute":"\#(refused.attribute)","#
                    + #""value":\#(refused.value)}"#)
            #expect(!sent.publications.contains { $0.topic == "cam/set" }, "\(refused.attribute)=\(refused.value)")
            let result = sent.last("traitbridge/devices/generic-cam/set/result")
            #expect(result?["status"]?.string == "error", "\(refused.attribute)=\(refused.value)")
            let message = result?["message"]?.string ?? ""
            #expect(
                message.contains(refused.attribute) && message.contains(refused.says),
                "\(refused.attribute)=\(refused.value): \(message)")
        }
    }
}
