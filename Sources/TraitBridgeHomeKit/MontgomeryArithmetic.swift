/// Modular exponentiation for SRP's fixed 3072-bit group in Montgomery form, on 48 64-bit limbs:
/// the one hot path of pair-setup (four exponentiations per try). BigInt's generic arithmetic
/// computes the same numbers (and the constants here) but is many times slower; the tests check
/// both against aiohomekit's vector. Numbers enter and leave as big-endian bytes.
struct MontgomeryArithmetic: Sendable {
    static let limbs = 48
    private let modulus: [UInt64]
    /// −N⁻¹ mod 2⁶⁴.
    private let inverse: UInt64
    /// R² mod N (R = 2³⁰⁷²), to enter Montgomery form.
    private let rSquared: [UInt64]

    /// `modulus` and `rSquared` as big-endian bytes (the latter computed once, by BigInt).
    init(modulus: [UInt8], rSquared: [UInt8]) {
        self.modulus = Self.limbs(of: modulus)
        self.rSquared = Self.limbs(of: rSquared)
        let low = self.modulus[0]
        var x: UInt64 = 1
        for _ in 0..<6 { x = x &* (2 &- low &* x) }  // Newton: x = N⁻¹ mod 2⁶⁴
        inverse = 0 &- x
    }

    static func limbs(of bytes: [UInt8]) -> [UInt64] {
        var result = [UInt64](repeating: 0, count: limbs)
        for (index, byte) in bytes.reversed().enumerated() where index < limbs * 8 {
            result[index / 8] |= UInt64(byte) << (UInt64(index % 8) * 8)
        }
        return result
    }

    static func bytes(of limbs: [UInt64]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: limbs.count * 8)
        for index in 0..<result.count {
            result[result.count - 1 - index] = UInt8(truncatingIfNeeded: limbs[index / 8] >> (UInt64(index % 8) * 8))
        }
        return result
    }

    /// a · b · R⁻¹ mod N (CIOS), for a, b < N.
    func multiply(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        let n = Self.limbs
        var t = [UInt64](repeating: 0, count: n + 2)
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                modulus.withUnsafeBufferPointer { m in
                    t.withUnsafeMutableBufferPointer { t in
                        for i in 0..<n {
                            var carry: UInt64 = 0
                            let bi = b[i]
                            for j in 0..<n {
                                let product = a[j].multipliedFullWidth(by: bi)
                                let (sum1, o1) = t[j].addingReportingOverflow(product.low)
                                let (sum2, o2) = sum1.addingReportingOverflow(carry)
                                t[j] = sum2
                                carry = product.high &+ (o1 ? 1 : 0) &+ (o2 ? 1 : 0)
                            }
                            let (top, overflow) = t[n].addingReportingOverflow(carry)
                            t[n] = top
                            t[n + 1] = overflow ? 1 : 0
                            let factor = t[0] &* inverse
                            var product = factor.multipliedFullWidth(by: m[0])
                            var (sum, o) = t[0].addingReportingOverflow(product.low)
                            carry = product.high &+ (o ? 1 : 0)
                            for j in 1..<n {
                                product = factor.multipliedFullWidth(by: m[j])
                                let (sum1, o1) = t[j].addingReportingOverflow(product.low)
                                (sum, o) = sum1.addingReportingOverflow(carry)
                                t[j - 1] = sum
                                carry = product.high &+ (o1 ? 1 : 0) &+ (o ? 1 : 0)
                            }
                            (sum, o) = t[n].addingReportingOverflow(carry)
                            t[n - 1] = sum
                            t[n] = t[n + 1] &+ (o ? 1 : 0)
                        }
                    }
                }
            }
        }
        var result = Array(t[0..<n])
        if t[n] != 0 || !Self.less(result, modulus) { Self.subtract(&result, modulus) }
        return result
    }

    private static func less(_ a: [UInt64], _ b: [UInt64]) -> Bool {
        for index in stride(from: a.count - 1, through: 0, by: -1) where a[index] != b[index] {
            return a[index] < b[index]
        }
        return false
    }

    private static func subtract(_ a: inout [UInt64], _ b: [UInt64]) {
        var borrow = false
        for index in 0..<a.count {
            let (d1, o1) = a[index].subtractingReportingOverflow(b[index])
            let (d2, o2) = d1.subtractingReportingOverflow(borrow ? 1 : 0)
            a[index] = d2
            borrow = o1 || o2
        }
    }

    /// base^exponent mod N; `base` below N (big-endian bytes in and out, 384 bytes out).
    func power(_ base: [UInt8], _ exponent: [UInt8]) -> [UInt8] {
        let one = Self.limbs(of: [1])
        let inForm = multiply(Self.limbs(of: base), rSquared)
        var result = multiply(one, rSquared)
        for byte in exponent {
            for bit in stride(from: 7, through: 0, by: -1) {
                result = multiply(result, result)
                if byte >> bit & 1 == 1 { result = multiply(result, inForm) }
            }
        }
        return Self.bytes(of: multiply(result, one))
    }

    /// a · b mod N, for a, b < N (aR · b · R⁻¹).
    func product(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        Self.bytes(of: multiply(multiply(Self.limbs(of: a), rSquared), Self.limbs(of: b)))
    }
}
