import Logging
import Testing
import TraitBridgeMatterCommissioning
import TraitBridgeMatterCrypto
import TraitBridgeMatterSecureChannel
import TraitBridgeTesting

@testable import TraitBridgeMatterDevice

/// The device's onboarding payload names the vendor and product it attests as (`matterBridge.attestation`
/// gives them to Basic Information), whatever ids its setup was made with; the passcode, discriminator and
/// PASE verifier stay.
@Suite("Matter setup: the onboarding payload's vendor and product")
struct MatterSetupTests {
    static func setup() throws -> MatterSetup {
        var generator = SeededGenerator(seed: 11)
        return try MatterSetup(
            passcode: try SetupPasscode(20_202_021), discriminator: 3840, vendorID: 0xFFF1, productID: 0x8001,
            using: &generator)
    }

    @Test("naming a product keeps the passcode, discriminator and verifier and changes the QR code's ids")
    func naming() throws {
        let test = try Self.setup()
        let product = test.naming(vendorID: 0x1234, productID: 0x5678)
        let read = try SetupPayload(qrCode: product.qrCode)
        #expect(read.vendorID == 0x1234 && read.productID == 0x5678)
        #expect(read.discriminator == 3840 && read.passcode == test.payload.passcode)
        #expect(product.manualPairingCode == test.manualPairingCode)
        #expect(product.salt == test.salt && product.iterations == test.iterations)
        #expect(product.verifier.serialized == test.verifier.serialized)
    }

    @Test("the device server's codes name Basic Information's vendor and product", arguments: [true, false])
    func serverNamesItsProduct(configured: Bool) throws {
        var information = DeviceInformation()
        if configured {
            information.vendorID = 0x1234
            information.productID = 0x5678
        }
        let server = MatterDeviceServer(
            setup: try Self.setup(), information: information, logger: Logger(label: "matter-setup-test"))
        let read = try SetupPayload(qrCode: server.setup.qrCode)
        #expect(read.vendorID == (configured ? 0x1234 : 0xFFF1))
        #expect(read.productID == (configured ? 0x5678 : 0x8001))
        #expect(read.discriminator == 3840)
    }
}
