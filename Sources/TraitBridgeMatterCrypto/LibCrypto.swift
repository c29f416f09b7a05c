internal import CLibCrypto

/// OpenSSL 3.0's libcrypto: every call this module makes lives in `LibCrypto*.swift`, and this file
/// holds the one place where its return codes become ``MatterCryptoError``. Every OpenSSL object is
/// owned by a Swift value that frees it (`defer` or `deinit`), so each path, thrown or not, frees it.
enum LibCrypto {
    // MARK: Errors

    /// The one place where libcrypto return codes become Swift errors: every call used here returns 1
    /// on success.
    static func check(_ returnCode: Int32, _ function: StaticString) throws(MatterCryptoError) {
        guard returnCode == 1 else { throw failure(function) }
    }

    /// An object a libcrypto constructor returned, or its error when it returned NULL.
    static func check<Object>(_ object: Object?, _ function: StaticString) throws(MatterCryptoError) -> Object {
        guard let object else { throw failure(function) }
        return object
    }

    /// The error for a failed call, with OpenSSL's oldest queued reason; the thread's queue is emptied
    /// so the next call starts clean.
    static func failure(_ function: StaticString) -> MatterCryptoError {
        let code = ERR_get_error()
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        ERR_clear_error()
        let reason = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .libcrypto(function: "\(function)", reason: code == 0 ? "no reason given" : reason)
    }

    /// A return code whose failure means libcrypto refused the input (a point off the curve, a tag that
    /// does not match), not that it broke: `refusal` is thrown, and OpenSSL's queue emptied so a later
    /// `failure` does not report a stale reason.
    static func check(_ returnCode: Int32, orRefuse refusal: MatterCryptoError) throws(MatterCryptoError) {
        guard returnCode == 1 else {
            ERR_clear_error()
            throw refusal
        }
    }

    // MARK: Constant time

    /// Whether two secrets (MACs, tags) are equal, in time that depends on their length only
    /// (`CRYPTO_memcmp`). Lengths are public: different lengths are unequal at once.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard !lhs.isEmpty else { return true }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0 }
        }
    }

    // MARK: PBKDF2

    /// PBKDF2-HMAC-SHA256 (RFC 8018 §5.2; `PKCS5_PBKDF2_HMAC` with `EVP_sha256`).
    static func pbkdf2SHA256(
        password: [UInt8], salt: [UInt8], iterations: Int, byteCount: Int
    ) throws(MatterCryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: byteCount)
        let returnCode = withBytes(password) { password, passwordCount in
            withBytes(salt) { salt, saltCount in
                output.withUnsafeMutableBufferPointer { output in
                    PKCS5_PBKDF2_HMAC(
                        UnsafeRawPointer(password).assumingMemoryBound(to: CChar.self), Int32(clamping: passwordCount),
                        salt, Int32(clamping: saltCount), Int32(clamping: iterations), EVP_sha256(),
                        Int32(clamping: output.count), output.baseAddress)
                }
            }
        }
        try check(returnCode, "PKCS5_PBKDF2_HMAC")
        return output
    }

    // MARK: Buffers

    /// `bytes` as a pointer and a count, with a valid pointer even when empty: libcrypto reads no byte
    /// of an empty input, but some calls take NULL to mean "no input at all" (CCM then skips the MAC).
    static func withBytes<Result>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) -> Result) -> Result {
        let storage = bytes.isEmpty ? [0] : bytes
        return storage.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress else { preconditionFailure("a non-empty array has storage") }
            return body(start, bytes.count)
        }
    }
}
