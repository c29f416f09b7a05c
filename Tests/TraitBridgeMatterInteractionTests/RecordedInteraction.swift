import TraitBridgeTesting

/// Interaction Model payloads of a real commissioning: Apple Home (the client) and CircuitMatter (the
/// device), from adafruit/CircuitMatter `test_data/apple_recorded_packets.jsonl` (commit 818c9e6,
/// 2024-10-17). The datagrams after PASE are sealed; these are their payloads (after the exchange header),
/// opened with the PASE session keys that `TraitBridgeMatterSecureChannelTests/RecordedPASETests` derives from
/// the same recording (passcode 67202583, the recorded y). The number is the datagram's index among the
/// recording's sent and received datagrams; all are on the PASE session, exchange IDs 0x689C and up.
enum RecordedInteraction {
    /// #7, Apple → device, exchange 0x689C: ReadRequest of 0/Descriptor(0x1D)/PartsList(3), fabric-filtered.
    static let readPartsList = [UInt8](hex: "1536001724020024031d2404031818290324ff0b18")
    /// #8, device → Apple: the ReportData answering it, PartsList [1], data version 0, no SuppressResponse
    /// (CircuitMatter does not set it, so Apple answers with #9).
    static let reportPartsList = [UInt8](hex: "153601153501240000370124020024031d24040318360204011818181824ff0b18")
    /// #9, Apple → device: StatusResponse SUCCESS.
    static let statusSuccess = [UInt8](hex: "1524000024ff0b18")
    /// #24, Apple → device, exchange 0x68A1: nine paths, two of them wildcards (`*/0x31/0xFFFC`,
    /// `0/0x38/*`), not fabric-filtered.
    static let readCommissioningInfo = [UInt8](
        hex: "153600172403312504fcff181724020024033024040018172402002403302404011817240200240330240402181724"
            + "020024033024040318172402002403282404021817240200240328240404181724033124040318172402002403381818"
            + "280324ff0b18")
    /// #25, device → Apple: its eight attribute reports.
    static let reportCommissioningInfo = [UInt8](
        hex: "15360115350124000037012402002403312504fcff18240201181815350124000037012402002403302404001824"
            + "02001818153501240000370124020024033024040118350224000a250184031818181535012400003701240200240330"
            + "240402182402021818153501240000370124020024033024040318240202181815350124000037012402002403282404"
            + "02182502f4ff181815350124000037012402002403282404041825023412181815350124000037012402002403312404"
            + "031824020a18181824ff0b18")
    /// #27, Apple → device: General Commissioning 0x30/4 and five attributes of ICD Management (0x46),
    /// a cluster CircuitMatter does not have.
    static let readICDManagement = [UInt8](
        hex: "15360017240200240330240404181724020024034624040618172402002403462404071817240200240346240400"
            + "181724020024034624040118172402002403462404021818280324ff0b18")
    /// #30, Apple → device, exchange 0x68A3: InvokeRequest General Commissioning ArmFailSafe
    /// {ExpiryLengthSeconds 10, Breadcrumb 4}.
    static let invokeArmFailSafe = [UInt8](
        hex: "1528002801360215370024000024013024020018350124000a24010418181824ff0b18")
    /// #31, device → Apple: InvokeResponse ArmFailSafeResponse {ErrorCode 0, DebugText ""}.
    static let invokeArmFailSafeResponse = [UInt8](
        hex: "152800360115350037002400002401302402011835012400002c01001818181824ff0b18")
    /// #32, Apple → device: InvokeRequest SetRegulatoryConfig {NewRegulatoryConfig 2, CountryCode "US",
    /// Breadcrumb 5}.
    static let invokeSetRegulatoryConfig = [UInt8](
        hex: "152800280136021537002400002401302402021835012400022c0102555324020518181824ff0b18")
}
