/**
 * Bounds of the Rust integer types SMG reads its flags and request fields as (`u16`, `u32`,
 * `i32`): a value outside them is refused there, so it is refused here with the same limits.
 */
export const U16_MAX = 65_535;
export const U32_MAX = 4_294_967_295;
export const I32_MIN = -(2 ** 31);
export const I32_MAX = 2 ** 31 - 1;
