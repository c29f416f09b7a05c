import TraitBridgeTesting

/// A real PASE exchange: Apple Home (the commissioner) with CircuitMatter (the device), recorded by
/// CircuitMatter's `RecordingSocket` in adafruit/CircuitMatter `test_data/apple_recorded_packets.jsonl`
/// (commit 818c9e6, 2024-10-17), whole UDP datagrams as they crossed the network. The device's state at
/// that commit (`certificates.py generate_initial_state`): passcode 67202583, 10000 iterations, the salt
/// and verifier below; the recording also holds the y its `randbelow` drew for Pake2. After Pake3, the
/// first message each way is sealed with the new session's keys.
enum RecordedPASE {
    static let passcode: UInt32 = 67_202_583
    static let iterations = 10_000
    static let salt = [UInt8](hex: "e6e08fd084c763323da8111eea17d4e077d8df2ed5a294a4d2a36f86fce78624")
    /// w0 ‖ L as CircuitMatter stored it.
    static let verifier = [UInt8](
        hex: "d311aac49141aff56242dde5bf5630e45d0670f040b4516f5c1f847082231f97"
            + "04b2390f6470d0c855a303a21d7beda069f627660232ea024181d24e943f21b4064a7b48ba9c8853fc00ec0561f80af6"
            + "5c977ee7fe87c4104096484055e2fcbfd0")
    /// The device's ephemeral y (recorded as `randbelow`, in decimal), big-endian.
    static let y = [UInt8](hex: "46dc0a50d9c405eb011251b64247e495223aedf5e68e68c1683c91450e0924fe")

    /// Apple → device, unsecured session.
    static let pbkdfParamRequest = [UInt8](
        hex: "04000000a5d0e2075e62a6858bfd7ce405209b68000015300120a882bce8bfdeab50e04ac596bfc05024db5902b7512e"
            + "d9b278cfaacc125230122502b6e4240300280435052501f40125022c012503a00f24041224050b260600000401240701"
            + "1818")
    static let pbkdfParamResponse = [UInt8](
        hex: "010000004c04e30f5e62a6858bfd7ce406219b680000a5d0e20715300120a882bce8bfdeab50e04ac596bfc05024db59"
            + "02b7512ed9b278cfaacc12523012300220b09aea11409a97cfc3b5079e0bde89d0f230145383475974c560a505efb259"
            + "69240301350425011027300220e6e08fd084c763323da8111eea17d4e077d8df2ed5a294a4d2a36f86fce786241818")
    static let pake1 = [UInt8](
        hex: "04000000a6d0e2075e62a6858bfd7ce407229b6800004c04e30f1530014104eed348b3b4afab1b33b4b421cbc6deea8a"
            + "1d832bf9e0b955d8253edb1f8b2c199750ee0b24fc5eb90d5f44483b05c05a3098b9a4908ddcbaf961e6f87cbcd72b18")
    static let pake2 = [UInt8](
        hex: "010000004d04e30f5e62a6858bfd7ce406239b680000a6d0e207153001410492f502e899ae0a85367551053f49f1e0d4"
            + "f8c3437f8550fe99af51c734ddb1ae7c6c388fe60986c2c1232e773427f97fc3a578820b901c28fa10a5dd5d5550d230"
            + "0220445f2918b40b5f8571c6e6eb3b74cb606b14f20cf36fd8b09e6b98b9336bd68418")
    static let pake3 = [UInt8](
        hex: "04000000a7d0e2075e62a6858bfd7ce407249b6800004d04e30f15300120f04ed65efe58a197035f89f6daa79878779c"
            + "f82912928a407ec2aeb5cf1311a118")
    static let statusReport = [UInt8](
        hex: "010000004e04e30f5e62a6858bfd7ce406409b680000a7d0e2070000000000000000")
    /// Apple → device on the PASE session (session ID 1, the device's): a ReadRequest, sealed with I2R.
    static let firstSecured = [UInt8](
        hex: "00010000b9dbd60ab7e5e9e61197929f675e6506ba5517e194b13a5848491dfdd9d195758481bf4265965b1237352e57"
            + "cbc4e8")
    /// Device → Apple on the PASE session (session ID 0xE4B6, Apple's): its ReportData, sealed with R2I.
    static let firstSecuredReply = [UInt8](
        hex: "00b6e400bbef090eb638f87196d1ea410cf830738106aa8b6554835235ccac51ff1b1921466b8577533fe1224b9580b6"
            + "8158c356a2a5c60602e74126cdd7797a41a856")

    /// The opcode and payload of an unsecured datagram: message header (8 bytes, + 8 for a source node
    /// ID when S, + 8 or 2 for a destination by DSIZ), then the protocol header (6 bytes, + 2 for a vendor
    /// ID when V, + 4 for an acknowledged counter when A) — Matter Core §4.4.
    static func unsecured(_ datagram: [UInt8]) -> (opcode: UInt8, payload: [UInt8]) {
        let flags = datagram[0]
        let destination = [0, 8, 2, 0][Int(flags & 0x03)]
        let start = 8 + (flags & 0x04 != 0 ? 8 : 0) + destination
        let exchangeFlags = datagram[start]
        let payload = start + 6 + (exchangeFlags & 0x10 != 0 ? 2 : 0) + (exchangeFlags & 0x02 != 0 ? 4 : 0)
        return (datagram[start + 1], Array(datagram[payload...]))
    }

    static func payload(_ datagram: [UInt8]) -> [UInt8] { unsecured(datagram).payload }
}
