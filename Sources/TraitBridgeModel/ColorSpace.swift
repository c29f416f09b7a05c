#if canImport(Glibc)
    import Glibc
#endif

/// Colour as the sources and clouds speak it — CIE 1931 xy (zigbee2mqtt, Home Assistant's `xy`),
/// hue and saturation (Matter, Google's `spectrumHsv`), and sRGB (Google's `spectrumRgb`, Home
/// Assistant's `rgb`) — converted through linear sRGB with the D65 white point. Every function is
/// total: a value that is not a colour (NaN, infinity, y = 0) gives `nil`, never a trap.
public enum ColorSpace {
    /// Hue in degrees 0…<360 and saturation 0…1, at full value.
    public struct HueSaturation: Sendable, Hashable {
        public var hue: Double
        public var saturation: Double

        public init(hue: Double, saturation: Double) {
            self.hue = hue
            self.saturation = saturation
        }
    }

    /// D65, what a colour of no saturation is.
    public static let white = (x: 0.3127, y: 0.3290)

    /// Red, green and blue 0…1 (gamma-encoded sRGB) of a hue and saturation at full value.
    public static func rgb(_ color: HueSaturation) -> (red: Double, green: Double, blue: Double)? {
        guard color.hue.isFinite, color.saturation.isFinite else { return nil }
        let wrapped = color.hue.truncatingRemainder(dividingBy: 360)
        let hue = wrapped < 0 ? wrapped + 360 : wrapped
        let chroma = min(1, max(0, color.saturation))
        let second = chroma * (1 - abs((hue / 60).truncatingRemainder(dividingBy: 2) - 1))
        let low = 1 - chroma
        let (r, g, b): (Double, Double, Double)
        switch hue {
        case ..<60: (r, g, b) = (chroma, second, 0)
        case ..<120: (r, g, b) = (second, chroma, 0)
        case ..<180: (r, g, b) = (0, chroma, second)
        case ..<240: (r, g, b) = (0, second, chroma)
        case ..<300: (r, g, b) = (second, 0, chroma)
        default: (r, g, b) = (chroma, 0, second)
        }
        return (r + low, g + low, b + low)
    }

    /// Hue and saturation of red, green and blue (any non-negative scale: 0…1 or 0…255).
    public static func hueSaturation(red: Double, green: Double, blue: Double) -> HueSaturation? {
        guard red.isFinite, green.isFinite, blue.isFinite, red >= 0, green >= 0, blue >= 0 else { return nil }
        let high = max(red, green, blue)
        let delta = high - min(red, green, blue)
        guard delta > 0 else { return HueSaturation(hue: 0, saturation: 0) }
        var hue: Double
        if high == red {
            hue = 60 * ((green - blue) / delta).truncatingRemainder(dividingBy: 6)
        } else if high == green {
            hue = 60 * ((blue - red) / delta + 2)
        } else {
            hue = 60 * ((red - green) / delta + 4)
        }
        if hue < 0 { hue += 360 }
        return HueSaturation(hue: hue, saturation: delta / high)
    }

    /// CIE xy of a hue and saturation at full value.
    public static func xy(_ color: HueSaturation) -> (x: Double, y: Double)? {
        guard let (r, g, b) = rgb(color) else { return nil }
        let (red, green, blue) = (linear(r), linear(g), linear(b))
        let x = 0.4124 * red + 0.3576 * green + 0.1805 * blue
        let y = 0.2126 * red + 0.7152 * green + 0.0722 * blue
        let z = 0.0193 * red + 0.1192 * green + 0.9505 * blue
        let sum = x + y + z
        guard sum > 0 else { return white }
        return (x / sum, y / sum)
    }

    /// Hue and saturation of CIE xy (the brightest sRGB colour of that chromaticity; a point
    /// outside sRGB is brought to its edge).
    public static func hueSaturation(x: Double, y: Double) -> HueSaturation? {
        guard x.isFinite, y.isFinite, y > 0, x >= 0, x + y <= 1 else { return nil }
        let bigX = x / y
        let bigZ = (1 - x - y) / y
        let red = max(0, 3.2406 * bigX - 1.5372 - 0.4986 * bigZ)
        let green = max(0, -0.9689 * bigX + 1.8758 + 0.0415 * bigZ)
        let blue = max(0, 0.0557 * bigX - 0.2040 + 1.0570 * bigZ)
        let high = max(red, green, blue)
        guard high > 0 else { return nil }
        return hueSaturation(red: gamma(red / high), green: gamma(green / high), blue: gamma(blue / high))
    }

    private static func linear(_ channel: Double) -> Double {
        channel <= 0.04045 ? channel / 12.92 : pow((channel + 0.055) / 1.055, 2.4)
    }

    private static func gamma(_ channel: Double) -> Double {
        channel <= 0.0031308 ? 12.92 * channel : 1.055 * pow(channel, 1 / 2.4) - 0.055
    }
}
