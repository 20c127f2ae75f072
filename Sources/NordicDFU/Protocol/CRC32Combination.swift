/// Joins CRC-32 values of adjacent pieces: given crc(A), crc(B) and the length of B, the CRC of
/// A‖B is crc(A)·x^(8·len(B)) mod P, XOR crc(B). Polynomials are in the reflected bit order of
/// the CRC itself (bit 31 is x^0).
enum CRC32Combination {
    private static let polynomial: UInt32 = 0xEDB8_8320
    /// x^0 in reflected order.
    private static let one: UInt32 = 1 << 31

    /// x^(8·count) mod P: what a CRC value is multiplied by to skip `count` bytes.
    static func shift(byBytes count: Int) -> UInt32 {
        var result = one
        var power = 3  // x^(2^3) = x^8: one byte
        var remaining = count
        while remaining != 0 {
            if remaining & 1 != 0 { result = multiply(powersOfX[power & 31], result) }
            remaining >>= 1
            power += 1
        }
        return result
    }

    /// The CRC of A‖B from `first` = crc(A), `second` = crc(B) and `shift` = shift(len(B)).
    static func combine(_ first: UInt32, _ second: UInt32, shift: UInt32) -> UInt32 {
        multiply(shift, first) ^ second
    }

    /// a·b mod P.
    private static func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var product: UInt32 = 0
        var multiplicand = b
        var bit = one
        while bit != 0 {
            if a & bit != 0 { product ^= multiplicand }
            multiplicand = multiplicand & 1 != 0 ? (multiplicand >> 1) ^ polynomial : multiplicand >> 1
            bit >>= 1
        }
        return product
    }

    /// x^(2^k) mod P for k in 0..<32. They repeat with period 32: the order of x divides
    /// 2^32 - 1, so x^(2^32) = x.
    private static let powersOfX: [UInt32] = {
        var powers = [one >> 1]  // x^1
        for _ in 1..<32 { powers.append(multiply(powers.last!, powers.last!)) }
        return powers
    }()
}
