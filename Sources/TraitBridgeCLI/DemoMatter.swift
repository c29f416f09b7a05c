import Foundation
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeLocalBroker
import TraitBridgeMatterCommissioning
import TraitBridgeModel

/// The demo's Matter devices: a real Matter Server (python-matter-server, from
/// `scripts/install-matter-server.sh`) with node dumps imported (a bridge with two bridged lights),
/// and a software Matter light it commissions, which answers commands. Both speak mDNS, so both
/// run inside a network sandbox (`scripts/sandbox.sh`), which the bridge reaches over its veth pair.
/// Also `traitbridge simulate --matter`. Without the server installed, or where no sandbox can be
/// made (not root), the demo goes on without Matter and says why.
final class DemoMatter: @unchecked Sendable {
    let server: MatterServerPeer
    let light: MatterLightPeer?
    /// The devices the bridge should make: one per imported node's device, one for the light.
    let expectedDevices: Int
    let summary: String
    /// The folder of PAA roots made for the server when there is no light (whose folder holds them otherwise).
    private let ownPAA: String?

    /// The checkout whose `.build-matter` holds the Matter Server: the one this `traitbridge` was
    /// built in (`.build/<config>/traitbridge`), else the working directory.
    static var repository: String {
        if let folder = DemoCommand.executableFolder {
            let checkout = URL(fileURLWithPath: folder).deletingLastPathComponent().deletingLastPathComponent().path
            if MatterServerPeer.executable(repository: checkout) != nil { return checkout }
        }
        return FileManager.default.currentDirectoryPath
    }

    /// `nil` (with the reason said) when the Matter Server is not installed or does not start.
    static func start(repository: String = repository, nodes folder: String, say: (String) -> Void) -> DemoMatter? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            say(
                "== no Matter devices: the folder of node dumps '\(folder)' does not exist; "
                    + "give one such as examples/matter or ../shared/corpus/matter/nodes")
            return nil
        }
        guard MatterServerPeer.executable(repository: repository) != nil else {
            say(
                "== no Matter devices: the Matter Server is not installed "
                    + "(scripts/install-matter-server.sh, or make demo)"
            )
            return nil
        }
        if let reason = NetworkSandbox.unavailableReason(repository: repository) {
            say("== no Matter devices: \(reason) (the Matter Server and the light speak mDNS)")
            return nil
        }
        do {
            return try DemoMatter(repository: repository, nodes: folder, say: say)
        } catch {
            say("== no Matter devices: \(error)")
            return nil
        }
    }

    private init(repository: String, nodes folder: String, say: (String) -> Void) throws {
        let sandbox = try NetworkSandbox(repository: repository)
        var light: MatterLightPeer?
        do {
            light = try MatterLightPeer(
                repository: repository, sandbox: sandbox, shouldStop: { Interruption.isRequested })
        } catch {
            say("== no software Matter light: \(error)")
        }
        // The roots the server trusts: the light's own PAA, and the SDK's test PAA the demo's Matter bridge
        // attests under (its test DAC).
        let paa =
            light?.paaDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("tb-demo-paa-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: paa, withIntermediateDirectories: true)
        try Data(DeviceAttestation.sdkTestPAACertificate).write(
            to: URL(fileURLWithPath: paa).appendingPathComponent("Chip-Test-PAA-FFF1-Cert.der"))
        let server = try MatterServerPeer(
            repository: repository, sandbox: sandbox, paaDirectory: paa, shouldStop: { Interruption.isRequested })
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasSuffix(".json")
        }
        .sorted()
        // Each dump in either shape (a node, or Home Assistant's {"node": …}); a bad one is skipped
        // with its reason and the others load.
        var nodes: [(file: String, text: String)] = []
        for file in files {
            switch MatterNodeDump.read(folder + "/" + file) {
            case .success(let text): nodes.append((file, text))
            case .failure(let problem): say("== skipped Matter node dump \(file): \(problem)")
            }
        }
        let refused = try server.importEach(nodes.map(\.text))
        for (index, answer) in refused.sorted(by: { $0.key < $1.key }) {
            say("== skipped Matter node dump \(nodes[index].file): the Matter Server refused it: \(answer)")
        }
        nodes = nodes.enumerated().filter { refused[$0.offset] == nil }.map(\.element)
        guard !nodes.isEmpty else {
            throw MatterNodeDump.Problem("no node dump in '\(folder)' could be imported (\(files.count) .json files)")
        }
        var bridged = 0
        for node in nodes { bridged += max(1, node.text.components(separatedBy: #"/57/17""#).count - 1) }
        let names = nodes.map(\.file).joined(separator: ", ")
        var summary = "imported \(nodes.count) node dump\(nodes.count == 1 ? "" : "s") (\(names))"
        if let passcode = light?.passcode {
            let answer = try server.commission(passcode: passcode)
            if answer.contains(#""result""#) {
                summary += "; commissioned a software Matter light (both in network sandbox \(sandbox.name))"
            } else {
                say("== the software Matter light was not commissioned: \(answer.prefix(300))")
                light?.stop()
                light = nil
            }
        }
        self.server = server
        self.light = light
        self.summary = summary
        ownPAA = light == nil ? paa : nil
        expectedDevices = bridged + (light == nil ? 0 : 1)
    }

    var pids: [pid_t] { [server.pid, light?.pid].compactMap { $0 } }
    var folders: [String] {
        [server.directory.path] + (light.map { [$0.directory.path] } ?? []) + (ownPAA.map { [$0] } ?? [])
    }

    /// Names the light and puts the Matter devices in the living room, as a user would.
    func place(in bridge: Bridge, connection: ConnectionOptions) throws -> Int {
        let graph = bridge.snapshot.graph
        var placed = 0
        for device in graph.devices.values where device.sources.contains(where: { $0.family == "matter" }) {
            var requests: [(String, JSONObject)] = []
            if device.id.rawValue == "matter-1", device.name != "Reading lamp" {
                requests.append(("rename", ["device": .string(device.id.rawValue), "name": "Reading lamp"]))
            }
            if graph.room(of: device.id)?.name != "Living room" {
                requests.append(("move", ["device": .string(device.id.rawValue), "room": "Living room"]))
            }
            for (operation, request) in requests {
                _ = try BridgeRequest.json(
                    operation, payload: JSONValue.object(request).serializedBytes(), connection: connection)
            }
            placed += requests.isEmpty ? 0 : 1
        }
        return placed
    }

    func stop() {
        light?.stop()
        server.stop()
        server.sandbox.remove()
    }
}
