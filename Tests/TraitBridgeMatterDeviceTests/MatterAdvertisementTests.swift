import Testing
import TraitBridgeDNSSD
import TraitBridgeMatterDevice
import TraitBridgeMatterTransport

/// The Matter device's DNS-SD records as values (research notes, matter-commissioning.md §3):
/// names, subtypes and TXT keys, and avahi-publish's arguments for them.
@Suite("Matter DNS-SD records")
struct MatterAdvertisementTests {
    /// The SDK's compressed fabric id vector (notes §7.1) and a node id.
    static let fabric = MatterAdvertisement.Fabric(
        compressedFabricID: 0x87E1_B004_E235_A130, nodeID: 0x8FC7_7724_01CD_0696)

    static func light(
        window: UInt64? = 0x0123_4567_89AB_CDEF, name: String = "TraitBridge light"
    ) -> MatterAdvertisement {
        MatterAdvertisement(
            discriminator: 3840, vendorID: 0xFFF1, productID: 0x8001, deviceType: 0x0100, deviceName: name, port: 5540,
            commissioningInstance: window, fabrics: [fabric])
    }

    @Test("commissionable: 16 uppercase hex digits, the discriminator, vendor and device type subtypes, _CM")
    func commissionable() throws {
        let service = try #require(Self.light().commissionable)
        #expect(service.name == "0123456789ABCDEF")
        #expect(service.type == "_matterc._udp")
        #expect(service.port == 5540)
        #expect(service.subtypes == ["_L3840", "_S15", "_V65521", "_T256", "_CM"])
        #expect(service.subtypeNames.first == "_L3840._sub._matterc._udp")
        #expect(
            service.txt == ["D": "3840", "VP": "65521+32769", "CM": "1", "DT": "256", "DN": "TraitBridge light"])
    }

    @Test("an instance with leading zero bits keeps its 16 digits")
    func leadingZeros() throws {
        #expect(try #require(Self.light(window: 0xAB).commissionable).name == "00000000000000AB")
        #expect(try #require(Self.light(window: .max).commissionable).name == "FFFFFFFFFFFFFFFF")
    }

    @Test("operational: <compressed fabric id>-<node id>, subtype _I<compressed fabric id>")
    func operational() throws {
        let services = Self.light(window: nil).operational
        #expect(services.count == 1)
        let service = try #require(services.first)
        #expect(service.name == "87E1B004E235A130-8FC7772401CD0696")
        #expect(service.type == "_matter._tcp")
        #expect(service.port == 5540)
        #expect(service.subtypes == ["_I87E1B004E235A130"])
        #expect(service.subtypeNames == ["_I87E1B004E235A130._sub._matter._tcp"])
        #expect(service.txt.isEmpty)
    }

    @Test("a closed window: no commissionable record, the operational ones stay; one per fabric")
    func closedWindow() {
        var advertisement = Self.light(window: nil)
        #expect(advertisement.commissionable == nil)
        #expect(advertisement.services.map(\.type) == ["_matter._tcp"])
        advertisement.fabrics.append(.init(compressedFabricID: 1, nodeID: 2))
        advertisement.commissioningInstance = 7
        #expect(advertisement.services.map(\.name) == [
            "0000000000000007", "87E1B004E235A130-8FC7772401CD0696", "0000000000000001-0000000000000002",
        ])
    }

    @Test(
        "DN holds at most 32 bytes, cut between characters",
        arguments: [
            (String(repeating: "a", count: 40), String(repeating: "a", count: 32)),
            (String(repeating: "é", count: 20), String(repeating: "é", count: 16)),
            (String(repeating: "a", count: 31) + "é", String(repeating: "a", count: 31)),
            (String(repeating: "a", count: 29) + "💡", String(repeating: "a", count: 29)),
            (String(repeating: "a", count: 28) + "💡", String(repeating: "a", count: 28) + "💡"),
            ("Lampe", "Lampe"),
        ])
    func deviceName(name: String, announced: String) throws {
        let dn = try #require(Self.light(name: name).commissionable?.txt["DN"])
        #expect(dn == announced)
        #expect(dn.utf8.count <= 32)
    }

    @Test("the discriminator's low 12 bits; SII and SAI from the MRP intervals (at most an hour); PH when given")
    func optionalKeys() throws {
        var advertisement = Self.light()
        advertisement.discriminator = 0xFF00
        advertisement.mrp = MRPParameters(
            idleRetransmissionInterval: .seconds(7200), activeRetransmissionInterval: .milliseconds(300))
        advertisement.pairingHint = 33
        let service = try #require(advertisement.commissionable)
        #expect(service.txt["D"] == "3840")
        #expect(Array(service.subtypes.prefix(2)) == ["_L3840", "_S15"])
        #expect(service.txt["SII"] == "3600000")
        #expect(service.txt["SAI"] == "300")
        #expect(service.txt["PH"] == "33")
        #expect(advertisement.operational.first?.txt == ["SII": "3600000", "SAI": "300"])
    }

    @Test("avahi-publish's arguments: the host, one --subtype a subtype, options ended, TXT in key order")
    func avahiArguments() throws {
        var service = try #require(Self.light(name: "-odd name").commissionable)
        service.txt = ["VP": "65521+32769", "D": "3840", "DN": "-odd name"]
        #expect(
            AvahiAdvertiser.arguments(for: service, host: "tb.local") == [
                "-s", "-H", "tb.local", "--subtype=_L3840._sub._matterc._udp", "--subtype=_S15._sub._matterc._udp",
                "--subtype=_V65521._sub._matterc._udp", "--subtype=_T256._sub._matterc._udp",
                "--subtype=_CM._sub._matterc._udp", "--", "0123456789ABCDEF", "_matterc._udp", "5540", "D=3840",
                "DN=-odd name", "VP=65521+32769",
            ])
    }
}
