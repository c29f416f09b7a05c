import TraitBridgeTesting

/// One SPAKE2+ P256-SHA256 run with every intermediate value; the draft-01 ones also carry Matter's key
/// schedule (Ka, Ke, KcA, KcB, cA, cB).
struct Spake2PlusVector: Sendable, CustomStringConvertible {
    var name: String
    var context: [UInt8]
    var idProver: [UInt8]
    var idVerifier: [UInt8]
    var w0: [UInt8]
    var w1: [UInt8]
    var l: [UInt8]
    var x: [UInt8]
    var pA: [UInt8]
    var y: [UInt8]
    var pB: [UInt8]
    var z: [UInt8]
    var v: [UInt8]
    var schedule: Schedule?

    struct Schedule: Sendable {
        var ka: [UInt8]
        var ke: [UInt8]
        var kcA: [UInt8]
        var kcB: [UInt8]
        var cA: [UInt8]
        var cB: [UInt8]
    }

    var description: String { name }
}

enum Spake2PlusVectors {
    /// draft-bar-cfrg-spake2plus-01's P256-SHA256-HKDF-HMAC vectors (Appendix: context
    /// "SPAKE2+-P256-SHA256-HKDF draft-01"), as connectedhomeip checks them in
    /// src/crypto/tests/SPAKE2P_RFC_test_vectors.h (rfc_tvs, the four identity combinations); the first
    /// is rs-matter's RFC_T[0] (rs-matter/src/sc/pase/spake2p.rs tests).
    static let draft01: [Spake2PlusVector] = [
        Spake2PlusVector(
            name: "draft-01 vector 1 (A 'client', B 'server')",
            context: Array("SPAKE2+-P256-SHA256-HKDF draft-01".utf8),
            idProver: Array("client".utf8), idVerifier: Array("server".utf8),
            w0: draft01W0, w1: draft01W1, l: draft01L,
            x: [UInt8](hex: "8b0f3f383905cf3a3bb955ef8fb62e24849dd349a05ca79aafb18041d30cbdb6"),
            pA: [UInt8](
                hex: "04af09987a593d3bac8694b123839422c3cc87e37d6b41c1d630f000dd64980e53"
                    + "7ae704bcede04ea3bec9b7475b32fa2ca3b684be14d11645e38ea6609eb39e7e"),
            y: [UInt8](hex: "2e0895b0e763d6d5a9564433e64ac3cac74ff897f6c3445247ba1bab40082a91"),
            pB: [UInt8](
                hex: "04417592620aebf9fd203616bbb9f121b730c258b286f890c5f19fea833a9c900c"
                    + "be9057bc549a3e19975be9927f0e7614f08d1f0a108eede5fd7eb5624584a4f4"),
            z: [UInt8](
                hex: "0471a35282d2026f36bf3ceb38fcf87e3112a4452f46e9f7b47fd769cfb570145b"
                    + "62589c76b7aa1eb6080a832e5332c36898426912e29c40ef9e9c742eee82bf30"),
            v: [UInt8](
                hex: "046718981bf15bc4db538fc1f1c1d058cb0eececf1dbe1b1ea08a4e25275d382e8"
                    + "2b348c8131d8ed669d169c2e03a858db7cf6ca2853a4071251a39fbe8cfc39bc"),
            schedule: .init(
                ka: [UInt8](hex: "f9cab9adcc0ed8e5a4db11a8505914b2"),
                ke: [UInt8](hex: "801db297654816eb4f02868129b9dc89"),
                kcA: [UInt8](hex: "0d248d7d19234f1486b2efba5179c52d"),
                kcB: [UInt8](hex: "556291df26d705a2caedd6474dd0079b"),
                cA: [UInt8](hex: "d4376f2da9c72226dd151b77c2919071155fc22a2068d90b5faa6c78c11e77dd"),
                cB: [UInt8](hex: "0660a680663e8c5695956fb22dff298b1d07a526cf3cc591adfecd1f6ef6e02e"))),
        Spake2PlusVector(
            name: "draft-01 vector 2 (A 'client', B empty)",
            context: Array("SPAKE2+-P256-SHA256-HKDF draft-01".utf8),
            idProver: Array("client".utf8), idVerifier: Array("".utf8),
            w0: draft01W0, w1: draft01W1, l: draft01L,
            x: [UInt8](hex: "ec82d9258337f61239c9cd68e8e532a3a6b83d12d2b1ca5d543f44def17dfb8d"),
            pA: [UInt8](
                hex: "04230779960824076d3666a7418e4d433e2fa15b06176eabdd572f43a32ecc79a1"
                    + "92b243d2624310a7356273b86e5fd9bd627d3ade762baeff1a320d4ad7a4e47f"),
            y: [UInt8](hex: "eac3f7de4b198d5fe25c443c0cd4963807add767815dd02a6f0133b4bc2c9eb0"),
            pB: [UInt8](
                hex: "044558642e71b616b248c9583bd6d7aa1b3952c6df6a9f7492a06035ca5d92522d"
                    + "84443de7aa20a59380fa4de6b7438d925dbfb7f1cfe60d79acf961ee33988c7d"),
            z: [UInt8](
                hex: "04b4e8770f19f58ddf83f9220c3a9305792665e0c60989e6ee9d7fa449c775d639"
                    + "5f6f25f307e3903ac045a013fbb5a676e872a6abfcf4d7bb5aac69efd6140eed"),
            v: [UInt8](
                hex: "04141db83bc7d96f41b636622e7a5c552ad83211ff55319ac25ed0a09f0818bd94"
                    + "2e8150319bfbfa686183806dc61911183f6a0f5956156023d96e0f93d275bf50"),
            schedule: .init(
                ka: [UInt8](hex: "e2cbee3ae19a4dbe9f146be6bee9bfa1"),
                ke: [UInt8](hex: "6989d8f9177ef7df67da437987f07255"),
                kcA: [UInt8](hex: "2f9e0bb669d2c22645bce34da04ac16a"),
                kcB: [UInt8](hex: "eb7a35168759dd8e9ce44e4dc51277ce"),
                cA: [UInt8](hex: "e1b9258807ba4750dae1d7f3c3c294f13dc4fa60cde346d5de7d200e2f8fd3fc"),
                cB: [UInt8](hex: "b9c39dfa49c47757de778d9bedeaca2448b905be19a43b94ee24b770208135e3"))),
        Spake2PlusVector(
            name: "draft-01 vector 3 (A empty, B 'server')",
            context: Array("SPAKE2+-P256-SHA256-HKDF draft-01".utf8),
            idProver: Array("".utf8), idVerifier: Array("server".utf8),
            w0: draft01W0, w1: draft01W1, l: draft01L,
            x: [UInt8](hex: "ba0f0f5b78ef23fd07868e46aeca63b51fda519a3420501acbe23d53c2918748"),
            pA: [UInt8](
                hex: "04c14d28f4370fea20745106cea58bcfb60f2949fa4e131b9aff5ea13fd5aa79d5"
                    + "07ae1d229e447e000f15eb78a9a32c2b88652e3411642043c1b2b7992cf2d4de"),
            y: [UInt8](hex: "39397fbe6db47e9fbd1a263d79f5d0aaa44df26ce755f78e092644b434533a42"),
            pB: [UInt8](
                hex: "04d1bee3120fd87e86fe189cb952dc688823080e62524dd2c08dffe3d22a0a8986"
                    + "aa64c9fe0191033cafbc9bcaefc8e2ba8ba860cd127af9efdd7f1c3a41920fe8"),
            z: [UInt8](
                hex: "04aac71cf4c8df8181b867c9ecbee9d0963caf51f1534a823429c26fe5248313ff"
                    + "c5c5e44ea8162161ab6b3d73b87704a45889bf6343d96fa96cd1641efa71607c"),
            v: [UInt8](
                hex: "04c7c9505365f7ce57293c92a37f1bbdc68e0322901e61edef59fee7876b17b063"
                    + "e0fa4a126eae0a671b37f1464cf1ccad591c33ae944e3b1f318d76e36fea9966"),
            schedule: .init(
                ka: [UInt8](hex: "ec8d19b807ffb1d1eea81a93ba35cdfe"),
                ke: [UInt8](hex: "2ea40e4badfa5452b5744dc5983e99ba"),
                kcA: [UInt8](hex: "66de534d9bf1e44e96a53a4b48d6b353"),
                kcB: [UInt8](hex: "4945c38bb476cb0f347f3222be9b64a2"),
                cA: [UInt8](hex: "e564c93b3015efb946dc16d642bbe7d1c8da5be164ed9fc3bae4e0ff86e1bd3c"),
                cB: [UInt8](hex: "072a94d9a54edc201d8891534c2317cadf3ea3792827f479e873f93e90f21552"))),
        Spake2PlusVector(
            name: "draft-01 vector 4 (A and B empty)",
            context: Array("SPAKE2+-P256-SHA256-HKDF draft-01".utf8),
            idProver: Array("".utf8), idVerifier: Array("".utf8),
            w0: draft01W0, w1: draft01W1, l: draft01L,
            x: [UInt8](hex: "5b478619804f4938d361fbba3a20648725222f0a54cc4c876139efe7d9a21786"),
            pA: [UInt8](
                hex: "04a6db23d001723fb01fcfc9d08746c3c2a0a3feff8635d29cad2853e735862342"
                    + "5cf39712e928054561ba71e2dc11f300f1760e71eb177021a8f85e78689071cd"),
            y: [UInt8](hex: "766770dad8c8eecba936823c0aed044b8c3c4f7655e8beec44a15dcbcaf78e5e"),
            pB: [UInt8](
                hex: "04390d29bf185c3abf99f150ae7c13388c82b6be0c07b1b8d90d26853e84374bbd"
                    + "c82becdb978ca3792f472424106a2578012752c11938fcf60a41df75ff7cf947"),
            z: [UInt8](
                hex: "040a150d9a62f514c9a1fedd782a0240a342721046cefb1111c3adb3be893ce9fc"
                    + "d2ffa137922fcf8a588d0f76ba9c55c85da2af3f1c789ca17976810387fb1d7e"),
            v: [UInt8](
                hex: "04f8e247cc263a1846272f5a3b61b68aa60a5a2665d10cd22c89cd6bad05dc0e5e"
                    + "650f21ff017186cc92651a4cd7e66ce88f529299f340ea80fb90a9bad094e1a6"),
            schedule: .init(
                ka: [UInt8](hex: "5929a3ce9822c81401bf0f764f69af08"),
                ke: [UInt8](hex: "ea3276d68334576097e04b19ee5a3a8b"),
                kcA: [UInt8](hex: "7f84b939d600117256b0c8a6d40cf181"),
                kcB: [UInt8](hex: "f7d7547ced93f681e8df4c258c4516fd"),
                cA: [UInt8](hex: "71d9412779b6c45a2c615c9df3f1fd93dc0aaf63104da8ece4aa1b5a3a415fea"),
                cB: [UInt8](hex: "095dc0400355cc233fde7437811815b3c1524aae80fd4e6810cf531cf11d20e3"))),
    ]

    static let draft01W0 = [UInt8](hex: "e6887cf9bdfb7579c69bf47928a84514b5e355ac034863f7ffaf4390e67d798c")
    static let draft01W1 = [UInt8](hex: "24b5ae4abda868ec9336ffc3b78ee31c5755bef1759227ef5372ca139b94e512")
    static let draft01L = [UInt8](
        hex: "0495645cfb74df6e58f9748bb83a86620bab7c82e107f57d6870da8cbcb2ff9f70"
            + "63a14b6402c62f99afcb9706a4d1a143273259fe76f1c605a3639745a92154b9")

    /// RFC 9383 Appendix C, SPAKE2+-P256-SHA256-HKDF-SHA256-HMAC-SHA256 (the values of
    /// draft-bar-cfrg-spake2plus-08 §Test Vectors, read in chris-wood/draft-bar-cfrg-spake2plus@89c162b,
    /// and the same in scenee/spake2plus_dart test/test_vectors/spake2plus.yaml "rfc 9383 appendix c").
    /// Its key schedule is not Matter's, so it carries TT and K_main instead.
    static let rfc9383 = Spake2PlusVector(
        name: "RFC 9383 Appendix C (P256-SHA256)",
        context: Array("SPAKE2+-P256-SHA256-HKDF-SHA256-HMAC-SHA256 Test Vectors".utf8),
        idProver: Array("client".utf8), idVerifier: Array("server".utf8),
        w0: [UInt8](hex: "bb8e1bbcf3c48f62c08db243652ae55d3e5586053fca77102994f23ad95491b3"),
        w1: [UInt8](hex: "7e945f34d78785b8a3ef44d0df5a1a97d6b3b460409a345ca7830387a74b1dba"),
        l: [UInt8](
            hex: "04eb7c9db3d9a9eb1f8adab81b5794c1f13ae3e225efbe91ea487425854c7fc00f"
                + "00bfedcbd09b2400142d40a14f2064ef31dfaa903b91d1faea7093d835966efd"),
        x: [UInt8](hex: "d1232c8e8693d02368976c174e2088851b8365d0d79a9eee709c6a05a2fad539"),
        pA: [UInt8](
            hex: "04ef3bd051bf78a2234ec0df197f7828060fe9856503579bb1733009042c15c0c1"
                + "de127727f418b5966afadfdd95a6e4591d171056b333dab97a79c7193e341727"),
        y: [UInt8](hex: "717a72348a182085109c8d3917d6c43d59b224dc6a7fc4f0483232fa6516d8b3"),
        pB: [UInt8](
            hex: "04c0f65da0d11927bdf5d560c69e1d7d939a05b0e88291887d679fcadea75810fb"
                + "5cc1ca7494db39e82ff2f50665255d76173e09986ab46742c798a9a68437b048"),
        z: [UInt8](
            hex: "04bbfce7dd7f277819c8da21544afb7964705569bdf12fb92aa388059408d50091"
                + "a0c5f1d3127f56813b5337f9e4e67e2ca633117a4fbd559946ab474356c41839"),
        v: [UInt8](
            hex: "0458bf27c6bca011c9ce1930e8984a797a3419797b936629a5a937cf2f11c8b951"
                + "4b82b993da8a46e664f23db7c01edc87faa530db01c2ee405230b18997f16b68"),
        schedule: nil)

    /// RFC 9383 Appendix C: TT (570 bytes).
    static let rfc9383Transcript = [UInt8](
        hex: "38000000000000005350414b45322b2d503235362d5348413235362d484b44462d5348413235362d484d41432d534841"
            + "323536205465737420566563746f72730600000000000000636c69656e74060000000000000073657276657241000000"
            + "0000000004886e2f97ace46e55ba9dd7242579f2993b64e16ef3dcab95afd497333d8fa12f5ff355163e43ce224e0b0e"
            + "65ff02ac8e5c7be09419c785e0ca547d55a12e2d20410000000000000004d8bbd6c639c62937b04d997f38c3770719c6"
            + "29d7014d49a24b4f98baa1292b4907d60aa6bfade45008a636337f5168c64d9bd36034808cd564490b1e656edbe74100"
            + "00000000000004ef3bd051bf78a2234ec0df197f7828060fe9856503579bb1733009042c15c0c1de127727f418b5966a"
            + "fadfdd95a6e4591d171056b333dab97a79c7193e341727410000000000000004c0f65da0d11927bdf5d560c69e1d7d93"
            + "9a05b0e88291887d679fcadea75810fb5cc1ca7494db39e82ff2f50665255d76173e09986ab46742c798a9a68437b048"
            + "410000000000000004bbfce7dd7f277819c8da21544afb7964705569bdf12fb92aa388059408d50091a0c5f1d3127f56"
            + "813b5337f9e4e67e2ca633117a4fbd559946ab474356c4183941000000000000000458bf27c6bca011c9ce1930e8984a"
            + "797a3419797b936629a5a937cf2f11c8b9514b82b993da8a46e664f23db7c01edc87faa530db01c2ee405230b18997f1"
            + "6b682000000000000000bb8e1bbcf3c48f62c08db243652ae55d3e5586053fca77102994f23ad95491b3")
    /// RFC 9383 Appendix C: K_main = Hash(TT).
    static let rfc9383KMain = [UInt8](hex: "4c59e1ccf2cfb961aa31bd9434478a1089b56cd11542f53d3576fb6c2a438a29")
    /// RFC 9383 Appendix C: K_confirmP ‖ K_confirmV = KDF(nil, K_main, "ConfirmationKeys"), 32 bytes each.
    static let rfc9383KConfirmP = [UInt8](hex: "871ae3f7b78445e34438fb284504240239031c39d80ac23eb5ab9be5ad6db58a")
    static let rfc9383KConfirmV = [UInt8](hex: "ccd53c7c1fa37b64a462b40db8be101cedcf838950162902054e644b400f1680")
}
