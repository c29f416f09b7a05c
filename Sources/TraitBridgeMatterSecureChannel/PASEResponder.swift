public import TraitBridgeMatterCrypto
public import TraitBridgeMatterTransport

/// The device's side of PASE (Matter Core, Passcode-Authenticated Session Establishment) for one
/// commissioning window: PBKDFParamRequest in, PBKDFParamResponse out; Pake1 in, Pake2 out; Pake3 in,
/// then either "session established" with the ``SessionKeys`` or a StatusReport of failure. It exists
/// so the handshake's order, its one-at-a-time rule and its failure count are a value type with no
/// I/O, tested without sockets: the caller decodes the message header, passes each Secure Channel
/// payload in with the exchange it came on (`Exchange`: whatever identifies an exchange to the caller,
/// e.g. peer address, ephemeral node ID and exchange ID), and sends what comes out.
///
/// It holds the ``Verifier`` with its salt and iterations, never the passcode.
///
/// Rules, with where they come from:
/// - the SPAKE2+ context hashes the PBKDFParamRequest payload exactly as received and the
///   PBKDFParamResponse exactly as sent (connectedhomeip `mCommissioningHash.AddData(msg)`, rs-matter
///   `start_context(rx.payload())`/`finish_context(wb.as_slice())`);
/// - a malformed message, an unsupported passcode ID, an invalid pA or a wrong cA ends the attempt with
///   StatusReport(FAILURE, INVALID_PARAMETER) (connectedhomeip `SendStatusReport(kProtocolCodeInvalidParam)`);
///   success ends it with StatusReport(SUCCESS, SESSION_ESTABLISHMENT_SUCCESS);
/// - one handshake at a time: a PBKDFParamRequest on another exchange meanwhile gets BUSY with a minimum
///   wait and the running one goes on (rs-matter answers BUSY; connectedhomeip stops listening for
///   PBKDFParamRequest, so the second commissioner times out; its CASE server answers BUSY with 5000 ms);
/// - every attempt that ends without a session counts; after ``Configuration/maxFailedAttempts``
///   (20: "Nodes SHALL exit commissioning mode after 20 failed commission attempts", the spec's §13.3 as
///   connectedhomeip's `kMaxFailedCommissioningAttempts` cites it; rs-matter `MAX_PAKE_FAILURES`) requests
///   are dropped and ``Failure/isWindowExhausted`` tells the caller to close the window. The window's own
///   timeout and the 60 s limit on one handshake (connectedhomeip `kPASESessionEstablishmentTimeout`) are
///   the caller's timers: it calls ``timeOut()`` when the second fires.
public struct PASEResponder<Exchange: Hashable & Sendable>: Sendable {
    /// What the device brings to a commissioning window.
    public struct Configuration: Sendable {
        public var verifier: Verifier
        /// 16...32 bytes, sent in PBKDFParamResponse.
        public let salt: [UInt8]
        /// 1000...100000.
        public let iterations: Int
        /// Sent as responderSessionParams; connectedhomeip always sends its MRP values.
        public var sessionParameters: SessionParameters?
        /// Failed attempts after which the responder refuses new ones.
        public var maxFailedAttempts: Int
        /// The wait a BUSY answer asks for.
        public var busyMinimumWaitMilliseconds: UInt16

        /// - Throws: ``MatterCryptoError/invalidSaltLength(_:)``, ``MatterCryptoError/invalidIterationCount(_:)``.
        public init(
            verifier: Verifier, salt: [UInt8], iterations: Int, sessionParameters: SessionParameters? = .mrpDefaults,
            maxFailedAttempts: Int = 20, busyMinimumWaitMilliseconds: UInt16 = 5000
        ) throws(MatterCryptoError) {
            guard Verifier.saltByteCounts.contains(salt.count) else { throw .invalidSaltLength(salt.count) }
            guard Verifier.iterationCounts.contains(iterations) else { throw .invalidIterationCount(iterations) }
            precondition(maxFailedAttempts > 0, "a window that allows no attempt is a bug")
            self.verifier = verifier
            self.salt = salt
            self.iterations = iterations
            self.sessionParameters = sessionParameters
            self.maxFailedAttempts = maxFailedAttempts
            self.busyMinimumWaitMilliseconds = busyMinimumWaitMilliseconds
        }
    }

    /// A Secure Channel message for the responder, as the caller read it off an unsecured session.
    public enum Event: Sendable {
        /// With the session ID the device allocates for the session (non-zero, unused).
        case pbkdfParamRequest(payload: [UInt8], localSessionID: UInt16)
        case pake1(payload: [UInt8])
        case pake3(payload: [UInt8])
        /// The commissioner gives up (e.g. its check of cB failed).
        case statusReport(payload: [UInt8])
    }

    /// A payload to send on an exchange, with its Secure Channel opcode.
    public struct Outgoing: Sendable, Equatable {
        public let opcode: SecureChannelOpcode
        public let payload: [UInt8]
        public let exchange: Exchange
    }

    /// A session is up: install it under ``localSessionID`` with ``keys``, then send ``reply``.
    public struct Established: Sendable {
        public let keys: SessionKeys
        public let localSessionID: UInt16
        /// The commissioner's session ID, for the header of every message to it.
        public let peerSessionID: UInt16
        public let peerSessionParameters: SessionParameters?
        /// StatusReport(SUCCESS) on the handshake's exchange.
        public let reply: Outgoing
    }

    /// An attempt ended without a session.
    public struct Failure: Sendable {
        public let error: PASEError
        /// The StatusReport to send, if any (none after a timeout or the peer's own report).
        public let reply: Outgoing?
        /// Attempts that have failed in this window, this one included.
        public let failedAttempts: Int
        /// The bound is reached: close the commissioning window (stop advertising); requests are dropped.
        public let isWindowExhausted: Bool
    }

    /// Why an event needed no answer.
    public enum DropReason: Sendable, Hashable {
        /// A Pake1, Pake3 or StatusReport not on the running handshake's exchange, or with none running.
        case notOnHandshakeExchange
        /// A PBKDFParamRequest after the failed-attempt bound.
        case windowExhausted
        /// A PBKDFParamRequest after a session was established (connectedhomeip stops listening then).
        case sessionEstablished
    }

    /// What the caller does next.
    public enum Action: Sendable {
        /// Send it; the handshake goes on (or, for BUSY, the other one does).
        case send(Outgoing)
        case established(Established)
        case failed(Failure)
        /// Send nothing.
        case drop(DropReason)
    }

    enum State: Sendable {
        case listening
        case awaitingPake1(Handshake)
        case awaitingPake3(Handshake)
        case established
        case exhausted
    }

    /// A running handshake: its exchange, the SPAKE2+ verifier, the session IDs.
    struct Handshake: Sendable {
        let exchange: Exchange
        var spake: VerifierHandshake
        let localSessionID: UInt16
        let peerSessionID: UInt16
        let peerSessionParameters: SessionParameters?
    }

    public let configuration: Configuration
    var state = State.listening
    /// Attempts that ended without a session since the window opened.
    public internal(set) var failedAttempts = 0

    public init(configuration: Configuration) { self.configuration = configuration }
}

extension PASEResponder: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The phase and the failure count; never the verifier, the salt or a key.
    public var description: String { "PASEResponder(\(phase), \(failedAttempts) failed)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// `listening`, `awaiting Pake1`, `awaiting Pake3`, `established` or `window exhausted`.
    public var phase: String {
        switch state {
        case .listening: "listening"
        case .awaitingPake1: "awaiting Pake1"
        case .awaitingPake3: "awaiting Pake3"
        case .established: "established"
        case .exhausted: "window exhausted"
        }
    }
}
