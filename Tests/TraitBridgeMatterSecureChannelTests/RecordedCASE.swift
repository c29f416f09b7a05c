import TraitBridgeTesting

/// A real CASE exchange: Apple Home (the initiator) with CircuitMatter (the device), from the same
/// recording as ``RecordedPASE`` (adafruit/CircuitMatter `test_data/apple_recorded_packets.jsonl` at
/// commit 14140f7; line numbers below count its lines from 0). The device's keys are not stored in that
/// repository, but the recording holds every random it drew: python-ecdsa's `SigningKey.generate(entropy:)`
/// reads 33 bytes and takes the first 256 bits plus one as the private key (`ecdsa.util.randrange`). The
/// fabric (root certificate, NOC, IPK epoch key) came to the device in AddTrustedRootCertificate and AddNOC
/// on the PASE session, which ``RecordedPASE``'s keys open.
enum RecordedCASE {
    /// Line 65, Apple → device on the PASE session: InvokeRequest AddTrustedRootCertificate.
    static let addTrustedRootCertificate = [UInt8](
        hex: "00010000d6dbd60a858452bbc0112f2d53e2edbf058583739a83a145356c3c460ac72769eeeb4974cfaea346d9714a5b"
            + "992b0e3f10706a5c181a51b923db78442950aac71458f19e654f2a8c59ff632b6213a96fa17e9f2ddd116181f1a9f36d"
            + "fe86d0b7cf85654e2cc79690199059b35013efbdb1fda73229cf2c21206c7604a19f897428785d8c7c782729ec2c5049"
            + "e06c4d696162e07f572d485d33bf7ac17898748933fc6cad4e2b9efa2f6f6e52e3fc1a8a3425d70f8e05e71fbf45d929"
            + "11e7f4509026ad2c017761e94dff4fd1f6609a269b7a73364e4ebe45f8d7f9a02a5b5c5e8d1b8ad24e9b472a1c003186"
            + "51fdbdd2bbf42d691361e1518c83607e5cb41c60cf49e4cb80c59f73d1815e74694210bd84921dab2778a51dee52524c"
            + "177ea7cefc7f0ffec30a567a5894be783295dc7c")
    /// Line 67, Apple → device on the PASE session: InvokeRequest AddNOC.
    static let addNOC = [UInt8](
        hex: "00010000d7dbd60a2f2bf027b7ff1d701902e30f44ebdb9dd35a890790ff58cfdf5a39adc80713035ce4e26000d107ba"
            + "fd7151f758f630b77e16645b1f384f3540638e8b1c619ccefa04a1f8bd6ff594119a27922a2dbe38223e55321870b0e1"
            + "f524dade8bd8866e5001f9b7a8105246986c0826296687d98fe75a9154456ee8f6afda3f0b56ea4d3d4393a660b7b8c4"
            + "d65ad6a554cc7e5b3eba36c3e7b353ab4b422d9a3d8ca06f1ec37e1dd641cdc90dd18914b34940ab60d9a00d5572b8f2"
            + "d4f14eabd3b512f5777cd29160d1cd6d4d5820ef63ea6ec65de0be21d5d3601dada00319b144db4a2a3b476aeb7af19f"
            + "c30de25b4e1306b8b85d8c9594bf70a59d83099eb3c6e246403a181b5589b24844032fa9669162280f9e74f697ff4c64"
            + "f91f8b9a549fe3358eca482357351c2217f6498449c86cbe9a99689a08a0800385ee867f68a59be70334cd24f42c798e"
            + "9fa6f63a100b50ef558b55")
    /// Line 59: the 33 bytes behind the device's operational key (made for the CSR).
    static let operationalKeyEntropy = [UInt8](
        hex: "975721f8bca8c8b898399c04aaca6286932c67da3bb349258624e66ff2fe223a84")
    /// Line 71, Apple → device, unsecured.
    static let sigma1 = [UInt8](
        hex: "04000000a9d0e207593c2882545088e80530ac680000153001208679ba0b539f8d855c95a0b192db7aeb0d26958ad8ba"
            + "887de11a49cade0a0dfb2502b7e430032020bd057e9cc04b8191338f1e99d96441fb67903b75b4ceac3fd9bfdbfd971b"
            + "4030044104c23d114725266ea057cc6e26aaf614814b0501e6d3d4c6233956bb89f5bff0cfd2361ab50412d03fbc1c00"
            + "811b39383547833f31da446ae29173453119220d4235052501f40125022c012503a00f24041224050b26060000040124"
            + "07011818")
    /// Line 74: the 33 bytes behind the device's ephemeral key.
    static let ephemeralKeyEntropy = [UInt8](
        hex: "855f517915691ccaa58aa320748b6265eb232ba9b442c49f6a859550e95164f5d7")
    /// Line 76, device → Apple, unsecured.
    static let sigma2 = [UInt8](
        hex: "010000004f04e30f593c2882545088e80631ac680000a9d0e20715300120890692860da508870eee3aa3510448780518"
            + "3d7f2ea67558a13c384b47f004ef240202300341048f3f8f9fc873d932c02ec677b799c71990858bbc91d91209afb8e5"
            + "fa28502660aa8ea576927f8efc11003b8bf64cca010f0dc8f47943ef332670c4799e36cb7531046801bd0dabd0a36170"
            + "db0ad42b7494b5e401830290c2fe088aad0f17f4e7c5e050da11a6c0755c4b0a0fc86b8804d6da4009094d755317a654"
            + "356148e1b7cbefd30a0ed37dffc6b2de86fbc5a976f481b78c6712b77a2ea6bff1ca2d31bdf0df9b22bad37b6ec4312d"
            + "c697b5ea758336d59083e4d316486f71dc2fb947242993c7fba3934b000b3c41070fc48b40af2f2bea439da6fda32d06"
            + "7262226b5cb05fd096af63799033e7eb0eecff996f29c85340c8b364e4b232a8844fe51b407475577a4061987937d494"
            + "1a26954885c18ef47eefa8224d0e2aba279802217e159936cdeb3982ce44847e4825ede6126663239c349405d3915dff"
            + "dec4acceea2d42ac13a90f0b7930327aa9d7dd4477b55e6242570238641e7f7750175b14ed39afe492650cde62bff918"
            + "110ff22d51bf8f35b46fda5b074741c07f5ad4a9eb4dc5fbc366c5b0adb89422b6be98c6e5f2d8c1a7c1c48836deca8a"
            + "c9f01de89d02904836193a59731691c16918")
    /// Line 77, Apple → device, unsecured.
    static let sigma3 = [UInt8](
        hex: "04000000aad0e207593c2882545088e80732ac6800004f04e30f1531015c011a252a61fc17ec09eb3d128eb8cc98adc6"
            + "d8cfd6406ddf58402a040b9f107c7c32c1544f399cce7e95c139b1cda448ac36635ef8c770a2f5adc2d449577ac02478"
            + "5396fdba6682e41ee09e69cb061b4f93fec38afee38b7d556fb46d4849eee6fcea6f3482e1807448eedbe1bf4a34e8db"
            + "0da8e20dcd593353bebd8764d25a39865b1b2a6a3b585543511de632e9843b49bff78d29cea93cc0b064d5a16e55b234"
            + "006d84111bc8313a9ce08eb0a7d0ab08951be31bd40f67c5dd8669b7b0f6ee4b3d05f2d8b089065c57d8ddea21733312"
            + "e30a5dd9dfbef62c79b252b2c44b38f39051b35f60671ce911bc81e3aab39f67f6f8b39aadf4db9cd01cc33541d30df9"
            + "e5685cb116b3c79a02e26691b3509bc0eab5bfb33cc1de9a19a848a340a738fd2d88f4ea33fb1d25f7db2a8f829dfa75"
            + "522907a2e8976f2a4ff3f5bb8cffa0317c226215461f5c3f7ffa7a2b4034aad83fac3bb414bfcf3aa487c318")
    /// Line 78, device → Apple: StatusReport(SUCCESS).
    static let statusReport = [UInt8](
        hex: "010000005004e30f593c2882545088e80640ac680000aad0e2070000000000000000")
    /// Line 79, Apple → device on the new CASE session (ID 2), sealed with I2R.
    static let firstSecured = [UInt8](
        hex: "000200007e5ba7012c0ea9e6e64f61b20203d4a49d8e63d65ab53ab85e3dda094b3612338bcff671bd3b8c41d76ddbf1"
            + "2057e96d220c27179df97a")
    /// Line 80, device → Apple on the CASE session (ID 0xE4B7), sealed with R2I.
    static let firstSecuredReply = [UInt8](
        hex: "00b7e400999da2082f8923957088d6c11122fc1ab4f2ec746015a8ea27655e208f5c6ddc330dc06bc75d592068bc4512"
            + "e4753a4b3675ef462c2009f4c41181b531b03f8160cd")

    /// A python-ecdsa private key from its 33 bytes of entropy: the first 32, big-endian, plus one.
    static func privateKey(fromEntropy entropy: [UInt8]) -> [UInt8] {
        var key = Array(entropy.prefix(32))
        for index in key.indices.reversed() {
            key[index] &+= 1
            if key[index] != 0 { break }
        }
        return key
    }
}
