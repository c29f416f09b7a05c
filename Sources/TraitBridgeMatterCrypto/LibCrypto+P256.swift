internal import CLibCrypto

/// P-256 arithmetic through libcrypto's EC_GROUP, EC_POINT and BIGNUM, each owned by a Swift object
/// that frees it. Scalars are flagged `BN_FLG_CONSTTIME`; every multiplication by a secret is a
/// single-scalar `EC_POINT_mul` (constant time for P-256: OpenSSL's nistz256 or its Montgomery ladder).
extension LibCrypto {
    /// A BIGNUM that is cleared and freed with its owner.
    final class Scalar {
        let pointer: OpaquePointer
        init(owning pointer: OpaquePointer) {
            self.pointer = pointer
            BN_set_flags(pointer, BN_FLG_CONSTTIME)
        }
        deinit { BN_clear_free(pointer) }
    }

    /// An EC_POINT that is cleared and freed with its owner.
    final class Point {
        let pointer: OpaquePointer
        init(owning pointer: OpaquePointer) { self.pointer = pointer }
        deinit { EC_POINT_clear_free(pointer) }
    }

    /// P-256 (`NID_X9_62_prime256v1`) for one computation: the group and a BN_CTX, freed together.
    /// Not shared between threads (a BN_CTX is not); make one per computation.
    final class P256 {
        static let scalarByteCount = 32
        /// 0x04, then x and y (SEC1 §2.3.3).
        static let pointByteCount = 65

        let group: OpaquePointer
        let context: OpaquePointer

        init() throws(MatterCryptoError) {
            let group = try check(EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1), "EC_GROUP_new_by_curve_name")
            guard let context = BN_CTX_new() else {
                EC_GROUP_free(group)
                throw failure("BN_CTX_new")
            }
            self.group = group
            self.context = context
        }

        deinit {
            BN_CTX_free(context)
            EC_GROUP_free(group)
        }

        // MARK: Scalars

        /// A stored scalar (w0, w1): exactly 32 bytes, big-endian, below the group order n.
        func scalar(_ bytes: [UInt8], name: String) throws(MatterCryptoError) -> Scalar {
            guard bytes.count == Self.scalarByteCount else { throw .invalidScalar(name: name) }
            let scalar = try integer(bytes)
            guard BN_cmp(scalar.pointer, EC_GROUP_get0_order(group)) < 0 else { throw .invalidScalar(name: name) }
            return scalar
        }

        /// `bytes` as a big-endian integer reduced mod n (w0s and w1s of 40 bytes: bias below 2^-64).
        func reduced(_ bytes: [UInt8]) throws(MatterCryptoError) -> Scalar {
            let wide = try integer(bytes)
            let result = Scalar(owning: try check(BN_new(), "BN_new"))
            try check(BN_nnmod(result.pointer, wide.pointer, EC_GROUP_get0_order(group), context), "BN_nnmod")
            return result
        }

        /// A uniformly random scalar in [1, n − 1] from OpenSSL's private DRBG (`BN_priv_rand_range`).
        func randomScalar() throws(MatterCryptoError) -> Scalar {
            let result = Scalar(owning: try check(BN_new(), "BN_new"))
            repeat {
                try check(BN_priv_rand_range(result.pointer, EC_GROUP_get0_order(group)), "BN_priv_rand_range")
            } while BN_is_zero(result.pointer) == 1
            return result
        }

        /// 32 bytes, big-endian, zero-padded.
        func bytes(of scalar: Scalar) throws(MatterCryptoError) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: Self.scalarByteCount)
            let written = bytes.withUnsafeMutableBufferPointer {
                BN_bn2binpad(scalar.pointer, $0.baseAddress, Int32($0.count))
            }
            guard written == Self.scalarByteCount else { throw failure("BN_bn2binpad") }
            return bytes
        }

        private func integer(_ bytes: [UInt8]) throws(MatterCryptoError) -> Scalar {
            let pointer = withBytes(bytes) { BN_bin2bn($0, Int32($1), nil) }
            return Scalar(owning: try check(pointer, "BN_bin2bn"))
        }

        // MARK: Points

        /// A point received or stored: 65 bytes, uncompressed, on the curve, not the identity (on
        /// P-256, whose cofactor is 1, that also puts it in the prime-order group).
        func point(_ bytes: [UInt8], name: String) throws(MatterCryptoError) -> Point {
            guard bytes.count == Self.pointByteCount, bytes[0] == 0x04 else { throw .invalidPoint(name: name) }
            let point = try newPoint()
            let decoded = withBytes(bytes) { EC_POINT_oct2point(group, point.pointer, $0, $1, context) }
            try check(decoded, orRefuse: .invalidPoint(name: name))
            try check(EC_POINT_is_on_curve(group, point.pointer, context), orRefuse: .invalidPoint(name: name))
            guard EC_POINT_is_at_infinity(group, point.pointer) == 0 else { throw .invalidPoint(name: name) }
            return point
        }

        /// 65 bytes, uncompressed; a point at infinity has no such encoding and is refused.
        func bytes(of point: Point, name: String) throws(MatterCryptoError) -> [UInt8] {
            guard EC_POINT_is_at_infinity(group, point.pointer) == 0 else { throw .invalidPoint(name: name) }
            var bytes = [UInt8](repeating: 0, count: Self.pointByteCount)
            let written = bytes.withUnsafeMutableBufferPointer {
                EC_POINT_point2oct(
                    group, point.pointer, POINT_CONVERSION_UNCOMPRESSED, $0.baseAddress, $0.count, context)
            }
            guard written == Self.pointByteCount else { throw failure("EC_POINT_point2oct") }
            return bytes
        }

        /// s·P, P the generator.
        func generator(times scalar: Scalar) throws(MatterCryptoError) -> Point {
            let result = try newPoint()
            try check(EC_POINT_mul(group, result.pointer, scalar.pointer, nil, nil, context), "EC_POINT_mul")
            return result
        }

        /// s·Q.
        func multiply(_ point: Point, by scalar: Scalar) throws(MatterCryptoError) -> Point {
            let result = try newPoint()
            try check(EC_POINT_mul(group, result.pointer, nil, point.pointer, scalar.pointer, context), "EC_POINT_mul")
            return result
        }

        /// A + B.
        func add(_ lhs: Point, _ rhs: Point) throws(MatterCryptoError) -> Point {
            let result = try newPoint()
            try check(EC_POINT_add(group, result.pointer, lhs.pointer, rhs.pointer, context), "EC_POINT_add")
            return result
        }

        /// A − B.
        func subtract(_ lhs: Point, _ rhs: Point) throws(MatterCryptoError) -> Point {
            let negated = Point(owning: try check(EC_POINT_dup(rhs.pointer, group), "EC_POINT_dup"))
            try check(EC_POINT_invert(group, negated.pointer, context), "EC_POINT_invert")
            return try add(lhs, negated)
        }

        private func newPoint() throws(MatterCryptoError) -> Point {
            Point(owning: try check(EC_POINT_new(group), "EC_POINT_new"))
        }
    }
}
