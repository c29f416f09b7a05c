/// One AES-CCM vector: hex key, nonce, additional data, plaintext, and ciphertext then tag.
struct CCMVector: Sendable, CustomStringConvertible {
    var name: String
    var key: String
    var nonce: String
    var aad: String
    var plaintext: String
    var sealed: String
    var tagLength = 16

    var description: String { name }
}

enum AESCCMVectors {
    /// RFC 3610 §8 packet vectors (13-byte nonces, 8- and 10-byte tags; the additional data is the
    /// first 8 or 12 bytes of each packet, `sealed` the rest after encryption). Nine of the 24: both
    /// keys, both tag lengths, both header lengths, and lengths on and off the block size.
    static let rfc3610: [CCMVector] = [
        CCMVector(
            name: "RFC 3610 packet vector #1",
            key: "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf", nonce: "00000003020100a0a1a2a3a4a5",
            aad: "0001020304050607",
            plaintext: "08090a0b0c0d0e0f101112131415161718191a1b1c1d1e",
            sealed: "588c979a61c663d2f066d0c2c0f989806d5f6b61dac38417e8d12cfdf926e0",
            tagLength: 8),
        CCMVector(
            name: "RFC 3610 packet vector #2",
            key: "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf", nonce: "00000004030201a0a1a2a3a4a5",
            aad: "0001020304050607",
            plaintext: "08090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            sealed: "72c91a36e135f8cf291ca894085c87e3cc15c439c9e43a3ba091d56e10400916",
            tagLength: 8),
        CCMVector(
            name: "RFC 3610 packet vector #3",
            key: "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf", nonce: "00000005040302a0a1a2a3a4a5",
            aad: "0001020304050607",
            plaintext: "08090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
            sealed: "51b1e5f44a197d1da46b0f8e2d282ae871e838bb64da8596574adaa76fbd9fb0c5",
            tagLength: 8),
        CCMVector(
            name: "RFC 3610 packet vector #4",
            key: "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf", nonce: "00000006050403a0a1a2a3a4a5",
            aad: "000102030405060708090a0b",
            plaintext: "0c0d0e0f101112131415161718191a1b1c1d1e",
            sealed: "a28c6865939a9a79faaa5c4c2a9d4a91cdac8c96c861b9c9e61ef1",
            tagLength: 8),
        CCMVector(
            name: "RFC 3610 packet vector #7",
            key: "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf", nonce: "00000009080706a0a1a2a3a4a5",
            aad: "0001020304050607",
            plaintext: "08090a0b0c0d0e0f101112131415161718191a1b1c1d1e",
            sealed: "0135d1b2c95f41d5d1d4fec185d166b8094e999dfed96c048c56602c97acbb7490",
            tagLength: 10),
        CCMVector(
            name: "RFC 3610 packet vector #10",
            key: "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf", nonce: "0000000c0b0a09a0a1a2a3a4a5",
            aad: "000102030405060708090a0b",
            plaintext: "0c0d0e0f101112131415161718191a1b1c1d1e",
            sealed: "07342594157785152b074098330abb141b947b566aa9406b4d999988dd",
            tagLength: 10),
        CCMVector(
            name: "RFC 3610 packet vector #13",
            key: "d7828d13b2b0bdc325a76236df93cc6b", nonce: "00412b4ea9cdbe3c9696766cfa",
            aad: "0be1a88bace018b1",
            plaintext: "08e8cf97d820ea258460e96ad9cf5289054d895ceac47c",
            sealed: "4cb97f86a2a4689a877947ab8091ef5386a6ffbdd080f8e78cf7cb0cddd7b3",
            tagLength: 8),
        CCMVector(
            name: "RFC 3610 packet vector #19",
            key: "d7828d13b2b0bdc325a76236df93cc6b", nonce: "0042fff8f1951c3c9696766cfa",
            aad: "d85bc7e69f944fb8",
            plaintext: "8a19b950bcf71a018e5e6701c91787659809d67dbedd18",
            sealed: "bc218daa947427b6db386a99ac1aef23ade0b52939cb6a637cf9bec2408897c6ba",
            tagLength: 10),
        CCMVector(
            name: "RFC 3610 packet vector #24",
            key: "d7828d13b2b0bdc325a76236df93cc6b", nonce: "008d493b30ae8b3c9696766cfa",
            aad: "6e37a6ef546d955d34ab6059",
            plaintext: "abf21c0b02feb88f856df4a37381bce3cc128517d4",
            sealed: "f32905b88a641b04b9c9ffb58cc390900f3da12ab16dce9e82efa16da62059",
            tagLength: 10),
    ]

    /// Matter's shape: 16-byte key, 13-byte nonce, 16-byte MIC.
    /// - connectedhomeip src/crypto/tests/AES_CCM_128_test_vectors.h (commit 08658cbd): the
    ///   "aesccm128_matter_*" vectors, whose nonces are Matter nonces (security flags, message counter,
    ///   node id 0x12345678), and chiptest tcId 38 (nothing to encrypt or authenticate). The rest of that
    ///   file uses 8- and 12-byte nonces.
    /// - Wycheproof testvectors_v1/aes_ccm_test.json (C2SP/wycheproof@dac1dd47), the ivSize 104,
    ///   keySize 128, tagSize 128 group: tcId 265...270.
    static let matter: [CCMVector] = [
        CCMVector(
            name: "connectedhomeip tcId 0",
            key: "0953fa93e7caac9638f58820220a398e", nonce: "00800000011201000012345678",
            aad: "",
            plaintext: "fffd034b50057e400000010000",
            sealed: "b5e5bfdacbaf6cb7fb6bff871fb0d6dd827d35bf372fa6425dcd17d356"),
        CCMVector(
            name: "connectedhomeip tcId 1",
            key: "0953fa93e7caac9638f58820220a398e", nonce: "00800148202345000012345678",
            aad: "",
            plaintext: "120104320308ba072f",
            sealed: "79d7dbc0c9b4d43eeb281508e50d58dbbd27c39597800f4733"),
        CCMVector(
            name: "connectedhomeip tcId 3",
            key: "be635105434859f484fc798e043ce40e", nonce: "00800000021201000012345678",
            aad: "",
            plaintext: "23450100",
            sealed: "b0e5d0ad6078e0ddbb7cd43faea57c7051e5b4ae"),
        CCMVector(
            name: "connectedhomeip tcId 10",
            key: "63964771734fbd76e3b40519d1d94a48", nonce: "010007080d1234973612345677",
            aad: "f4a002c7fb1e4ca0a469a021de0db875",
            plaintext: "ea0a00576f726c64",
            sealed: "de1547118463123e14604c1ddb4f5987064b1736f3923962"),
        CCMVector(
            name: "connectedhomeip tcId 11",
            key: "08b0da255d2083808a1b4d367090bacc", nonce: "777828b13679a9e2ca89568233",
            aad: "c5",
            plaintext: "",
            sealed: "0a93ec4a8ff33964f58005868a868856"),
        CCMVector(
            name: "connectedhomeip tcId 12",
            key: "08b0da255d2083808a1b4d367090bacc", nonce: "777828b13679a9e2ca89568233",
            aad: "c5",
            plaintext: "3a7f9b1d2e4c6a8f0b5d1c3e7a6d9f20",
            sealed: "c9d2fc9793b6f73a90d326816f52c16ae4e24567106d61bf5040b26fbaa68a58"),
        CCMVector(
            name: "connectedhomeip tcId 13",
            key: "08b0da255d2083808a1b4d367090bacc", nonce: "777828b13679a9e2ca89568233",
            aad: "c5",
            plaintext: "e41a9f3c6d2b81745c0e3f1d89ab5d26f3c7e890bd12a45b",
            sealed: "17b7f8b6d0d11cc1c78005a29c94036ca9f376fb1b041005d0350a3c8db3cd8512f45f35432cb70d"),
        CCMVector(
            name: "connectedhomeip tcId 14",
            key: "08b0da255d2083808a1b4d367090bacc", nonce: "777828b13679a9e2ca89568233",
            aad: "c5",
            plaintext: "d84f9a2c3b71e56f08a1d3c9be427a9f14c26e8d9b703fa1e36b8c9d24f0a7bd",
            sealed: "2be2fda6868b78da932fe976ab7d24d54ef6f0e63d668bff9dbb2219cbbe0e38137ac1c885859b96"
                + "95d7e807194e86af"),
        CCMVector(
            name: "connectedhomeip tcId 15",
            key: "08b0da255d2083808a1b4d367090bacc", nonce: "777828b13679a9e2ca89568233",
            aad: "c5",
            plaintext: "e9b47fc238d5a91c04bf7e6d8392fa47b0ae16c2d9f84c71ad3507b2e1f6903aa4d1cf821a9b4c1d",
            sealed: "1a191848852f34a99f3144d296ada40dea9a88a97feef82fd3e5a9360eb839bf98c08990b68d17da"
                + "d4a8dcb362adc0b11d4b6a6f117c49db"),
        CCMVector(
            name: "connectedhomeip tcId 38 (all empty)",
            key: "404142434445464748494a4b4c4d4e4f", nonce: "101112131415161718191a1b1c",
            aad: "",
            plaintext: "",
            sealed: "32d6f8243a26d0bd98d01b0f448e7773"),
        CCMVector(
            name: "Wycheproof tcId 265",
            key: "694a2ae94cc2fc6c82dcd16c58a34195", nonce: "8b4de9497e78d9c73bdcb374de",
            aad: "",
            plaintext: "",
            sealed: "36b20bcb064609cbc03ae32786f72eb5"),
        CCMVector(
            name: "Wycheproof tcId 266",
            key: "268c961a4fa54c214a2af8fe76a277cc", nonce: "f13443da0e412f1cc7a90165c6",
            aad: "4fad12b402c58029",
            plaintext: "",
            sealed: "be58071342c9348baf78104e2258e616"),
        CCMVector(
            name: "Wycheproof tcId 267",
            key: "7c5aa1cd2fc171d5bb91ee74f31e1a63", nonce: "70a2a5303734517827faa7ee78",
            aad: "",
            plaintext: "4bd1d3427e0735a08f475bc73ec3648c",
            sealed: "9ab61214ea6611510706315f0fc9bd65a2b3fc3c1349cbfd9ded7cc32effb389"),
        CCMVector(
            name: "Wycheproof tcId 268",
            key: "e74b73c2ad93d38dd4432d6e51d3e3ec", nonce: "06ee28ea532ff5aae6b0f6a28a",
            aad: "10bc9864f1332e41",
            plaintext: "aad5d758041e5443ede7e9bbac1db490",
            sealed: "d3ed6bb55d98b00e1b76938a1c6bd5ed22201e4eb2a42291a7d57e357082d77e"),
        CCMVector(
            name: "Wycheproof tcId 269",
            key: "be707774d9eab370db4e8250297a7437", nonce: "7944b487d59b6ffcc96c9df62d",
            aad: "",
            plaintext: "28eab56885e1e12bd72def1138237f0dbc",
            sealed: "ee05ffeaab17bb4de94527e0297058c48bff899f929b371639d48c3c447f51c577"),
        CCMVector(
            name: "Wycheproof tcId 270",
            key: "30829416d80d4b6dd91a16c4694c5acd", nonce: "8bc7ecd5bde196b72319de6b77",
            aad: "970fe65b7789a555",
            plaintext: "4a3122f801d6638228fa0e30af3f36627a",
            sealed: "5125ed68afbd34bc00c73171ada31ee84a1da320c8bab525e375f37a3bba3e0eb9"),
    ]
}
