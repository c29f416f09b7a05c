import Testing
import TraitBridgeMatterSecureChannel

@testable import TraitBridgeFuzzing

/// The `matter-case` target's seeds reach what they are for: a session, and each of Sigma3's checks refusing.
@Suite("Fuzz: matter-case")
struct MatterCASEInputsTests {
    @Test("the seeds open a session and reach Sigma3's decryption, chain and signature checks")
    func seedsReachSigma3() throws {
        let runs = MatterCASEInputs.seeds().map(MatterCASEInputs.events)
        try #require(runs.count == 5)
        #expect(runs[0] == [.session])
        #expect(runs[1] == [.failure(.signature)])
        guard case .failure(.certificateChain) = runs[2].first else {
            Issue.record("Node02_04 of another root passed the chain check: \(runs[2])")
            return
        }
        #expect(runs[2].dropFirst() == [.failure(.signature)])
        #expect(runs[3] == [.failure(.decryptionFailed)])
        // BUSY leaves the running handshake alone; a Sigma3 with none running is dropped.
        #expect(
            runs[4].prefix(2) == [.failure(.peerStatusReport(.secureChannel(.invalidParameter))), .failure(.timedOut)])
        guard runs[4].count == 3, case .failure(.unexpectedMessage) = runs[4][2] else {
            Issue.record("a second Sigma1 on the running exchange did not end the handshake: \(runs[4])")
            return
        }
    }
}
