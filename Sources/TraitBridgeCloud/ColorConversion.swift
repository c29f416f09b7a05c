import TraitBridgeModel

#if canImport(Glibc)
    import Glibc
#endif

/// Google's spectrum colours (`spectrumRgb` 0xRRGGBB, `spectrumHsv` degrees and 0…1) and Matter's
/// hue and saturation (0…254). Code, not table data: the conversion is arithmetic on three channels.
enum ColorConversion {
    struct HueSaturation: Equatable {
        /// Matter `currentHue`, 0…254 for 0…360°.
        var hue: Int64
        /// Matter `currentSaturation`, 0…254 for 0…1.
        var saturation: Int64
    }

    /// Matter hue and saturation from model numbers, clamped to 0…254; `nil` for NaN or ±infinity.
    static func matter(hue: Double, saturation: Double) -> HueSaturation? {
        guard hue.isFinite, saturation.isFinite else { return nil }
        return HueSaturation(
            hue: FiniteNumber.int64(rounding: min(254, max(0, hue))) ?? 0,
            saturation: FiniteNumber.int64(rounding: min(254, max(0, saturation))) ?? 0)
    }

    /// `nil` for NaN or ±infinity (a SYNC or EXECUTE can carry 1e400).
    static func fromHSV(hue degrees: Double, saturation: Double) -> HueSaturation? {
        guard degrees.isFinite, saturation.isFinite else { return nil }
        let wrapped = degrees.truncatingRemainder(dividingBy: 360)
        let hue = (wrapped < 0 ? wrapped + 360 : wrapped) / 360 * 254
        return HueSaturation(
            hue: FiniteNumber.int64(rounding: hue) ?? 0,
            saturation: FiniteNumber.int64(rounding: min(1, max(0, saturation)) * 254) ?? 0)
    }

    /// Google's `spectrumRgb` as a number from outside: `nil` unless it is a whole 0…0xFFFFFF.
    static func fromRGB(number: Double) -> HueSaturation? {
        guard let rgb = FiniteNumber.int64(rounding: number), rgb == Int64(exactly: number),
            (0...0xFF_FFFF).contains(rgb)
        else {
            return nil
        }
        return fromRGB(rgb)
    }

    static func fromRGB(_ rgb: Int64) -> HueSaturation {
        let color = ColorSpace.hueSaturation(
            red: Double((rgb >> 16) & 0xFF), green: Double((rgb >> 8) & 0xFF), blue: Double(rgb & 0xFF))
        return color.flatMap { fromHSV(hue: $0.hue, saturation: $0.saturation) } ?? HueSaturation(hue: 0, saturation: 0)
    }

    /// Degrees and 0…1 saturation of Matter hue and saturation.
    static func toHSV(_ color: HueSaturation) -> (hue: Double, saturation: Double) {
        ((Double(color.hue) / 254 * 360 * 10).rounded() / 10, (Double(color.saturation) / 254 * 1000).rounded() / 1000)
    }

    /// 0xRRGGBB at full value.
    static func toRGB(_ color: HueSaturation) -> Int64 {
        let (hue, saturation) = toHSV(color)
        guard let (r, g, b) = ColorSpace.rgb(.init(hue: hue, saturation: saturation)) else { return 0 }
        let channel = { (v: Double) in FiniteNumber.int64(rounding: v * 255) ?? 0 }
        return channel(r) << 16 | channel(g) << 8 | channel(b)
    }
}
