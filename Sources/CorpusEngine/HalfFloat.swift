/// Widening the 16-bit floats model hubs store weights in to `Float`, exactly (every f16 and bf16
/// value is a float): by bits, because `Float16` is not available on every platform this builds for.
enum HalfFloat {
    /// bfloat16 is the top half of a float32.
    @inline(__always)
    static func bf16(_ bits: UInt16) -> Float { Float(bitPattern: UInt32(bits) << 16) }

    /// IEEE 754 binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits.
    @inline(__always)
    static func f16(_ bits: UInt16) -> Float {
        let sign = UInt32(bits & 0x8000) << 16
        let exponent = Int(bits >> 10) & 0x1F
        let fraction = UInt32(bits & 0x3FF)
        switch exponent {
        case 0:
            // Zero or subnormal: fraction · 2⁻²⁴, exact in a float.
            let magnitude = Float(fraction) * 0x1p-24
            return Float(bitPattern: sign | magnitude.bitPattern)
        case 0x1F:
            return Float(bitPattern: sign | 0x7F80_0000 | fraction << 13)
        default:
            return Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | fraction << 13)
        }
    }
}
