public import TraitBridgeMatterCredentials
public import TraitBridgeMatterTransport

/// The device's side of CASE (Matter Core §4.14.2, Certificate Authenticated Session Establishment):
/// Sigma1 in, Sigma2 out; Sigma3 in, then "session established" with the ``SessionKeys``, the peer's node
/// ID and CATs, or a StatusReport of failure. Like ``PASEResponder`` it is a value with no I/O: the caller
/// passes each Secure Channel payload in with the exchange it came on and sends what comes out.
///
/// Rules, with where they come from (connectedhomeip `CASESession.cpp`, `CASEServer.cpp`; rs-matter
/// `sc/case/responder.rs`):
/// - every installed fabric is tried for Sigma1's destination ID, each compared in constant time; none →
///   StatusReport(FAILURE, NO_SHARED_TRUST_ROOTS);
/// - resumption (§4.14.2.2–4.14.2.4, `CASESession::TryResumeSession`): a Sigma1 with resumptionID and
///   initiatorResumeMIC naming a record of ``resumptions`` whose fabric is still installed, with the MIC
///   under S1RK right, gets Sigma2_Resume (a new resumption ID, the MIC under S2RK, the session ID); the
///   initiator's StatusReport(SUCCESS) then establishes the session with the record's peer, CATs and
///   fabric and keys from "SessionResumptionKeys", and the record moves to the new ID. An unknown ID or a
///   wrong MIC gets a full Sigma2, as the SDK answers (its initiator takes Sigma2 in `kSentSigma1Resume`);
///   one of the two fields without the other is malformed. A full CASE leaves a record under TBEData2's
///   resumption ID; records of a fabric go with it (``forgetResumptions(ofFabric:)``, and whenever
///   ``configuration`` no longer lists the fabric);
/// - Sigma3: decrypt, decode, verify the initiator's chain to the fabric's root under
///   ``Configuration/validityPolicy`` (the SDK's `SetEffectiveTime`: real time, else Last Known Good
///   Time), check its fabric ID is the session's, verify TBSData3's signature with its NOC's key; any
///   failure → StatusReport(FAILURE, INVALID_PARAMETER); success → StatusReport(SUCCESS,
///   SESSION_ESTABLISHMENT_SUCCESS);
/// - one handshake (or resumption) at a time: a Sigma1 on another exchange meanwhile gets BUSY with a minimum wait
///   (connectedhomeip's CASE server answers BUSY while its one `CASESession` is in use);
/// - the transcript hashes the payloads as received and sent; nothing is counted (CASE has no attempt
///   bound), and after each handshake the responder listens again. The 30 s per-message timeout is the
///   caller's timer (``timeOut()``).
public struct CASEResponder<Exchange: Hashable & Sendable>: Sendable {
    /// What the device brings: its fabrics and how it checks certificate times.
    public struct Configuration: Sendable {
        /// The installed fabrics; the fabric table replaces this list when it changes.
        public var fabrics: [CASEFabric]
        /// The time policy for the initiator's chain; `.lastKnownGoodTime` on a device without real time.
        public var validityPolicy: ValidityPolicy
        /// Sent as responderSessionParams.
        public var sessionParameters: SessionParameters?
        /// The wait a BUSY answer asks for.
        public var busyMinimumWaitMilliseconds: UInt16

        public init(
            fabrics: [CASEFabric], validityPolicy: ValidityPolicy,
            sessionParameters: SessionParameters? = .mrpDefaults, busyMinimumWaitMilliseconds: UInt16 = 5000
        ) {
            self.fabrics = fabrics
            self.validityPolicy = validityPolicy
            self.sessionParameters = sessionParameters
            self.busyMinimumWaitMilliseconds = busyMinimumWaitMilliseconds
        }
    }

    /// A Secure Channel message for the responder, as the caller read it off an unsecured session.
    public enum Event: Sendable {
        /// With the session ID the device allocates for the session (non-zero, unused).
        case sigma1(payload: [UInt8], localSessionID: UInt16)
        case sigma3(payload: [UInt8])
        case statusReport(payload: [UInt8])
    }

    /// A payload to send on an exchange, with its Secure Channel opcode.
    public struct Outgoing: Sendable, Equatable {
        public let opcode: SecureChannelOpcode
        public let payload: [UInt8]
        public let exchange: Exchange
    }

    /// A session is up: install it under ``localSessionID`` with ``keys``, then send ``reply`` if any.
    public struct Established: Sendable {
        public let keys: SessionKeys
        public let localSessionID: UInt16
        public let peerSessionID: UInt16
        /// From the initiator's NOC.
        public let peerNodeID: UInt64
        /// The initiator NOC's CASE Authenticated Tags, for access control.
        public let peerCASEAuthenticatedTags: [UInt32]
        public let fabricIndex: UInt8
        public let peerSessionParameters: SessionParameters?
        /// StatusReport(SUCCESS) on the handshake's exchange after Sigma3; nil after a resumption (the
        /// initiator's StatusReport(SUCCESS) ended it).
        public let reply: Outgoing?
        /// Whether the session was resumed (Sigma2_Resume) rather than set up by a full handshake.
        public let isResumption: Bool
    }

    /// A handshake ended without a session.
    public struct Failure: Sendable {
        public let error: CASEError
        /// The StatusReport to send, if any (none after a timeout or the peer's own report).
        public let reply: Outgoing?
    }

    /// Why an event needed no answer.
    public enum DropReason: Sendable, Hashable {
        /// A Sigma3 or StatusReport not on the running handshake's exchange, or with none running.
        case notOnHandshakeExchange
    }

    /// What the caller does next.
    public enum Action: Sendable {
        case send(Outgoing)
        case established(Established)
        case failed(Failure)
        case drop(DropReason)
    }

    enum State: Sendable {
        case listening
        case awaitingSigma3(Handshake)
        /// Sigma2_Resume sent; the initiator's StatusReport ends it.
        case awaitingResumeStatus(Resumption)

        /// The running handshake's exchange; nil when listening.
        var exchange: Exchange? {
            switch self {
            case .listening: nil
            case .awaitingSigma3(let handshake): handshake.exchange
            case .awaitingResumeStatus(let resumption): resumption.exchange
            }
        }
    }

    /// A running handshake: what Sigma3's checks and the session keys need.
    struct Handshake: Sendable {
        let exchange: Exchange
        let fabric: CASEFabric
        /// The ECDH secret as bytes (SymmetricKey is not Sendable).
        let sharedSecret: [UInt8]
        let sigma1: [UInt8]
        let sigma2: [UInt8]
        let initiatorEphemeralPublicKey: [UInt8]
        let responderEphemeralPublicKey: [UInt8]
        let localSessionID: UInt16
        let peerSessionID: UInt16
        let peerSessionParameters: SessionParameters?
        /// Sent in TBEData2: the record a successful Sigma3 leaves is saved under it.
        let resumptionID: [UInt8]
    }

    /// A running resumption: what the initiator's StatusReport(SUCCESS) needs to establish the session.
    struct Resumption: Sendable {
        let exchange: Exchange
        let record: ResumptionStore.Record
        let initiatorRandom: [UInt8]
        /// The new ID Sigma2_Resume carried; the record moves to it.
        let newResumptionID: [UInt8]
        let localSessionID: UInt16
        let peerSessionID: UInt16
        let peerSessionParameters: SessionParameters?
    }

    /// The fabrics and policy; a fabric no longer listed takes its resumption records with it.
    public var configuration: Configuration {
        didSet { resumptions.retainFabrics(Set(configuration.fabrics.map(\.fabricIndex))) }
    }
    /// The sessions a Sigma1 may resume.
    public internal(set) var resumptions: ResumptionStore
    var state = State.listening

    public init(configuration: Configuration, resumptions: ResumptionStore = ResumptionStore()) {
        self.configuration = configuration
        self.resumptions = resumptions
    }

    /// Forgets the resumption records of fabric `index` (removed, or its AddNOC rolled back), so no
    /// session on it is resumed, even if the index is reused before ``configuration`` changes.
    public mutating func forgetResumptions(ofFabric index: UInt8) {
        resumptions.removeAll(ofFabric: index)
    }

    /// Holds `records` (least recent first, as ``ResumptionStore/records`` lists them) in place of the
    /// ones held: what a restart kept. Records of a fabric ``configuration`` does not list are left out.
    public mutating func restoreResumptions(_ records: [ResumptionStore.Record]) {
        resumptions = ResumptionStore(capacity: resumptions.capacity, restoring: records)
        resumptions.retainFabrics(Set(configuration.fabrics.map(\.fabricIndex)))
    }
}

extension CASEResponder: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The phase; never a key, a secret or a transcript.
    public var description: String {
        "CASEResponder(\(phase), \(configuration.fabrics.count) fabrics, \(resumptions.count) resumable)"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// `listening`, `awaiting Sigma3` or `awaiting resume status`.
    public var phase: String {
        switch state {
        case .listening: "listening"
        case .awaitingSigma3: "awaiting Sigma3"
        case .awaitingResumeStatus: "awaiting resume status"
        }
    }
}
