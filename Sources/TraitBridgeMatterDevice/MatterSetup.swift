public import TraitBridgeMatterCrypto
public import TraitBridgeMatterSecureChannel
public import TraitBridgeMatterTransport

/// The device's commissioning identity: its onboarding payload (passcode, discriminator, vendor and
/// product) and the PASE verifier derived from the passcode with a random salt. It exists so the
/// passcode is drawn once and turned into the codes a person types or scans, while the node is
/// given only the verifier, salt and iterations. Kept in memory for now; persistence comes later.
///
/// Its description and dump leave out the passcode, the salt and the verifier.
public struct MatterSetup: Sendable {
    /// PBKDF2 iterations for the verifier: the spec's minimum, what connectedhomeip's examples use.
    public static let defaultIterations = 1000
    /// Salt bytes: the most the spec allows.
    public static let saltByteCount = 32

    /// The onboarding payload; its codes carry the passcode.
    public let payload: SetupPayload
    public let salt: [UInt8]
    public let iterations: Int
    public let verifier: Verifier

    /// A fixed identity (tests: passcode 20202021, discriminator 3840, vendor 0xFFF1, product 0x8001);
    /// the salt is drawn from `generator` when not given.
    /// - Throws: ``SetupPayloadError`` for a discriminator above 4095, ``MatterCryptoError`` for a salt
    ///   or iteration count Matter does not allow.
    public init(
        passcode: SetupPasscode, discriminator: UInt16, vendorID: UInt16, productID: UInt16, salt: [UInt8]? = nil,
        iterations: Int = defaultIterations, using generator: inout some RandomNumberGenerator
    ) throws {
        payload = try SetupPayload(
            vendorID: vendorID, productID: productID, discriminator: discriminator, passcode: passcode)
        let salt = salt ?? (0..<Self.saltByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        self.salt = salt
        self.iterations = iterations
        verifier = try Verifier.make(passcode: passcode.value, salt: salt, iterations: iterations)
    }

    /// A new identity: a random valid passcode and discriminator, a random salt (from `generator`:
    /// pass `SystemRandomNumberGenerator` outside tests). Test vendor 0xFFF1 and product 0x8001 by default.
    public static func random(
        vendorID: UInt16 = 0xFFF1, productID: UInt16 = 0x8001, using generator: inout some RandomNumberGenerator
    ) throws -> MatterSetup {
        try MatterSetup(
            passcode: SetupPasscode.random(using: &generator),
            discriminator: SetupPayload.randomDiscriminator(using: &generator), vendorID: vendorID,
            productID: productID, using: &generator)
    }

    /// The same identity (passcode, discriminator, salt, verifier) whose onboarding payload names
    /// `vendorID` and `productID`: the QR code carries them (the 11-digit manual code of the standard flow
    /// does not), and a commissioner may hold them against the DAC and Basic Information.
    public func naming(vendorID: UInt16, productID: UInt16) -> MatterSetup {
        MatterSetup(
            payload: payload.naming(vendorID: vendorID, productID: productID), salt: salt, iterations: iterations,
            verifier: verifier)
    }

    private init(payload: SetupPayload, salt: [UInt8], iterations: Int, verifier: Verifier) {
        self.payload = payload
        self.salt = salt
        self.iterations = iterations
        self.verifier = verifier
    }

    /// The 11-digit manual pairing code, to show the person commissioning.
    public var manualPairingCode: String { payload.manualPairingCode }
    /// The `MT:` QR payload, to show the person commissioning.
    public var qrCode: String { payload.qrCode }

    /// What the node's PASE responder needs: the verifier, salt and iterations, never the passcode.
    public func commissioning() throws(MatterCryptoError) -> PASEResponder<ExchangeKey>.Configuration {
        try PASEResponder<ExchangeKey>.Configuration(verifier: verifier, salt: salt, iterations: iterations)
    }
}

extension MatterSetup: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The payload's description (passcode redacted), the iterations; never salt or verifier.
    public var description: String { "MatterSetup(\(payload), \(iterations) iterations)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
