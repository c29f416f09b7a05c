import Foundation
import Testing
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeTesting

@Suite("Cloud-to-cloud export")
struct CloudExportTests {
    let c2c = CloudFixtures.c2c

    @Test("c2c-validate accepts the SYNC and QUERY exports of a home with every supported type",
          .enabled(if: CloudFixtures.paths.shared != nil, "needs ../shared/tools/c2c-validate"))
    func validatorAcceptsExports() throws {
        let devices = try CloudHome.cloudDevices() + CloudHome.localDevices()
        let (sync, skipped) = c2c.syncResponse(devices, agentUserID: "tb-test", requestID: "r-sync")
        #expect(skipped.isEmpty, "\(skipped)")
        let syncPath = try CloudHome.write(sync.serializedBytes(), name: "sync.json")
        let queryPath = try CloudHome.write(c2c.queryResponse(devices, requestID: "r-query").serializedBytes(), name: "query.json")
        defer {
            try? FileManager.default.removeItem(atPath: syncPath)
            try? FileManager.default.removeItem(atPath: queryPath)
        }
        // The validator knows OccupancySensing by name (attribute and state): no problem at all.
        let syncResult = try CloudHome.validate(["sync", syncPath])
        #expect(Self.problems(syncResult.output).isEmpty, "\(syncResult.output)")
        #expect(syncResult.status == 0, "\(syncResult.output)")
        let queryResult = try CloudHome.validate(["query", queryPath, "--sync", syncPath])
        #expect(Self.problems(queryResult.output).isEmpty, "\(queryResult.output)")
        #expect(queryResult.status == 0, "\(queryResult.output)")
    }

    @Test("a camera exports as CAMERA with CameraStream over WebRTC; its GetCameraStream answer validates",
          .enabled(if: CloudFixtures.paths.shared != nil, "needs ../shared/tools/c2c-validate"))
    func cameraExport() throws {
        let camera = try CloudHome.camera()
        let (sync, _) = c2c.syncResponse([camera], agentUserID: "tb-test", requestID: "r-cam")
        let text = String(decoding: sync.serializedBytes(), as: UTF8.self)
        #expect(text.contains(#""type":"action.devices.types.CAMERA""#), "\(text)")
        #expect(text.contains(#""action.devices.traits.CameraStream""#), "\(text)")
        #expect(text.contains(#""cameraStreamSupportedProtocols":["webrtc"]"#), "\(text)")
        #expect(text.contains(#""cameraStreamNeedAuthToken":true"#), "\(text)")
        #expect(text.contains(#""action.devices.traits.OccupancySensing""#), "motion goes too: \(text)")
        let grant = CameraStreamGrant(
            signalingURL: "https://bridge.example/camera-stream", token: "tok", iceServers: "[]")
        let response = c2c.executeResponse(requestID: "x", outcomes: [
            ExecuteOutcome(c2cID: "frigate-front_door", status: .success, states: GoogleC2C.cameraStreamStates(grant))
        ])
        let syncPath = try CloudHome.write(sync.serializedBytes(), name: "camera-sync.json")
        let path = try CloudHome.write(response.serializedBytes(), name: "camera-execute.json")
        defer {
            try? FileManager.default.removeItem(atPath: syncPath)
            try? FileManager.default.removeItem(atPath: path)
        }
        let syncResult = try CloudHome.validate(["sync", syncPath])
        #expect(syncResult.status == 0 && Self.problems(syncResult.output).isEmpty, "\(syncResult.output)")
        let result = try CloudHome.validate(["execute", path])
        #expect(result.status == 0 && Self.problems(result.output).isEmpty, "\(result.output)")
        // Read back as the importing side reads it.
        let read = GoogleC2C.cameraStreamGrant(fromExecuteAnswer: response.serializedBytes(), link: "b")
        #expect(read == .success(grant))
        let hls = Array(#"""
            {"payload":{"commands":[{"ids":["c"],"status":"SUCCESS",
            "states":{"cameraStreamProtocol":"hls","cameraStreamAccessUrl":"https://x/y.m3u8"}}]}}
            """#.utf8)
        guard case .failure(let problem) = GoogleC2C.cameraStreamGrant(fromExecuteAnswer: hls, link: "b") else {
            Issue.record("an hls stream is not a WebRTC grant")
            return
        }
        #expect(problem.message.contains("streams 'hls', not webrtc"), "\(problem)")
    }

    /// The problem lines of c2c-validate's output (without its summary line).
    static func problems(_ output: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter { $0.hasPrefix("$") }
    }

    @Test("c2c-validate accepts an EXECUTE response with every outcome the bridge produces",
          .enabled(if: CloudFixtures.paths.shared != nil, "needs ../shared/tools/c2c-validate"))
    func validatorAcceptsExecuteResponse() throws {
        let devices = try CloudHome.cloudDevices()
        let light = try #require(devices.first { $0.c2cID == "color-light" })
        let response = c2c.executeResponse(requestID: "x", outcomes: [
            ExecuteOutcome(c2cID: "color-light", status: .success, states: c2c.executeStates(of: light)),
            ExecuteOutcome(c2cID: "plug", status: .offline, errorCode: "deviceOffline"),
            ExecuteOutcome(c2cID: "lock", status: .pending),
            ExecuteOutcome(c2cID: "nobody", status: .error, errorCode: "deviceNotFound"),
            ExecuteOutcome(c2cID: "fan", status: .error, errorCode: "valueOutOfRange"),
            ExecuteOutcome(c2cID: "blinds", status: .error, errorCode: "functionNotSupported"),
            ExecuteOutcome(c2cID: "other", status: .error, errorCode: "deviceNotFound"),
        ])
        let text = String(decoding: response.serializedBytes(), as: UTF8.self)
        #expect(text.contains(#"{"ids":["nobody","other"],"status":"ERROR","errorCode":"deviceNotFound"}"#), "grouped by outcome")
        let path = try CloudHome.write(response.serializedBytes(), name: "execute.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try CloudHome.validate(["execute", path])
        #expect(result.status == 0, "\(result.output)")
    }
}
