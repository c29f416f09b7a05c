import Testing
import TraitBridgeMatterDevice
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// Every datagram is hostile: garbage, truncated headers, oversize ones, forged secure messages and
/// floods of ephemeral IDs never trap the node and never grow it past its bounds.
@Suite("Matter node, hostile input")
struct MatterNodeHostileInputTests {
    @Test("garbage and truncated headers never trap and change nothing")
    func garbage() throws {
        var harness = try NodeHarness()
        var commissioner = Commissioner()
        let request = commissioner.pbkdfParamRequest()
        // Message header (8 + 8 for the source node ID) and protocol header (6): every shorter prefix.
        var inputs = (0..<22).map { Array(request.prefix($0)) }
        var random = SeededGenerator(seed: 1)
        inputs += (0..<500).map { _ in
            (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
        inputs.append([UInt8](repeating: 0, count: 1281))
        // A forged message on a session that does not exist, and one whose ciphertext is garbage.
        inputs.append(MessageHeader(sessionID: 1234, messageCounter: 1).encoded + [UInt8](repeating: 7, count: 40))
        for input in inputs {
            let effects = harness.send(input)
            #expect(effects.established == nil)
        }
        #expect(harness.node.secureSessionCount == 0)
        #expect(harness.node.pasePhase == "listening")
        // Only the random inputs could ever decode; prefixes and the oversize one leave no trace at all.
        var clean = try NodeHarness()
        for input in inputs.prefix(22) + [inputs[inputs.count - 2]] {
            #expect(clean.send(input).sent.isEmpty)
        }
        #expect(clean.node.unsecuredSessionCount == 0 && clean.node.nextDeadline == nil)
        let oversize = clean.send([UInt8](repeating: 0, count: 1281))
        #expect(oversize.logs.contains { $0.level == .warning && $0.message.contains("1280") })
    }

    @Test("a flood of ephemeral node IDs stays within the unsecured bound, the running handshake kept")
    func flood() throws {
        var harness = try NodeHarness()
        var first = Commissioner()
        _ = try harness.send(first.pbkdfParamRequest()).onlyUnsecured()
        for id in 0..<UInt64(40) {
            var other = Commissioner(peer: "10.0.0.9:\(id)", ephemeralNodeID: 1000 + id, exchangeID: 3)
            _ = harness.send(other.pbkdfParamRequest(), from: other.peer)
        }
        #expect(harness.node.unsecuredSessionCount == NodeLimits().unsecuredSessions)
        #expect(harness.node.pasePhase == "awaiting Pake1")
    }
}
