internal import CLibCrypto

/// AES-128-CCM through libcrypto's EVP interface (`EVP_aes_128_ccm`), following the CCM sequence of
/// OpenSSL's EVP_EncryptInit(3): nonce length and tag length, then key and nonce, then the message
/// length, then the additional data, then the message in one update.
extension LibCrypto {
    /// Ciphertext then tag. `key` is the 16 key bytes, read in place (never copied to an array); lengths
    /// are checked by the caller (`AESCCM.checkLengths`).
    static func sealCCM(
        key: UnsafeRawBufferPointer, nonce: [UInt8], plaintext: [UInt8], aad: [UInt8], tagLength: Int
    ) throws(MatterCryptoError) -> [UInt8] {
        let context = try check(EVP_CIPHER_CTX_new(), "EVP_CIPHER_CTX_new")
        defer { EVP_CIPHER_CTX_free(context) }
        try check(EVP_EncryptInit_ex(context, EVP_aes_128_ccm(), nil, nil, nil), "EVP_EncryptInit_ex")
        try check(
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_CCM_SET_IVLEN, Int32(nonce.count), nil), "EVP_CIPHER_CTX_ctrl")
        try check(EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_CCM_SET_TAG, Int32(tagLength), nil), "EVP_CIPHER_CTX_ctrl")
        try setKeyAndNonce(context, key: key, nonce: nonce, isEncrypting: true)

        var written: Int32 = 0
        try check(EVP_EncryptUpdate(context, nil, &written, nil, Int32(plaintext.count)), "EVP_EncryptUpdate")
        if !aad.isEmpty {
            let returnCode = withBytes(aad) { EVP_EncryptUpdate(context, nil, &written, $0, Int32($1)) }
            try check(returnCode, "EVP_EncryptUpdate")
        }
        var sealed = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        let returnCode = withBytes(plaintext) { input, count in
            sealed.withUnsafeMutableBufferPointer {
                EVP_EncryptUpdate(context, $0.baseAddress, &written, input, Int32(count))
            }
        }
        try check(returnCode, "EVP_EncryptUpdate")
        let tagReturnCode = sealed.withUnsafeMutableBufferPointer { output in
            EVP_CIPHER_CTX_ctrl(
                context, EVP_CTRL_CCM_GET_TAG, Int32(tagLength), output.baseAddress.map { $0 + plaintext.count })
        }
        try check(tagReturnCode, "EVP_CIPHER_CTX_ctrl")
        return sealed
    }

    /// The plaintext of `ciphertext` under `tag`, or ``MatterCryptoError/authenticationFailed`` (OpenSSL
    /// compares the tag with `CRYPTO_memcmp` and wipes what it decrypted when it does not match).
    static func openCCM(
        key: UnsafeRawBufferPointer, nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8], aad: [UInt8]
    ) throws(MatterCryptoError) -> [UInt8] {
        let context = try check(EVP_CIPHER_CTX_new(), "EVP_CIPHER_CTX_new")
        defer { EVP_CIPHER_CTX_free(context) }
        try check(EVP_DecryptInit_ex(context, EVP_aes_128_ccm(), nil, nil, nil), "EVP_DecryptInit_ex")
        try check(
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_CCM_SET_IVLEN, Int32(nonce.count), nil), "EVP_CIPHER_CTX_ctrl")
        var expectedTag = tag
        let tagReturnCode = expectedTag.withUnsafeMutableBytes {
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_CCM_SET_TAG, Int32($0.count), $0.baseAddress)
        }
        try check(tagReturnCode, "EVP_CIPHER_CTX_ctrl")
        try setKeyAndNonce(context, key: key, nonce: nonce, isEncrypting: false)

        var written: Int32 = 0
        try check(EVP_DecryptUpdate(context, nil, &written, nil, Int32(ciphertext.count)), "EVP_DecryptUpdate")
        if !aad.isEmpty {
            let returnCode = withBytes(aad) { EVP_DecryptUpdate(context, nil, &written, $0, Int32($1)) }
            try check(returnCode, "EVP_DecryptUpdate")
        }
        // One more byte than the message so the output pointer exists for an empty one.
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 1)
        let returnCode = withBytes(ciphertext) { input, count in
            plaintext.withUnsafeMutableBufferPointer {
                EVP_DecryptUpdate(context, $0.baseAddress, &written, input, Int32(count))
            }
        }
        if returnCode != 1 { plaintext.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        try check(returnCode, orRefuse: .authenticationFailed)
        plaintext.removeLast()
        return plaintext
    }

    private static func setKeyAndNonce(
        _ context: OpaquePointer, key: UnsafeRawBufferPointer, nonce: [UInt8], isEncrypting: Bool
    ) throws(MatterCryptoError) {
        let key = key.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let returnCode = withBytes(nonce) { nonce, _ in
            isEncrypting
                ? EVP_EncryptInit_ex(context, nil, nil, key, nonce) : EVP_DecryptInit_ex(context, nil, nil, key, nonce)
        }
        try check(returnCode, isEncrypting ? "EVP_EncryptInit_ex" : "EVP_DecryptInit_ex")
    }
}
