/**
 * A minimal protobuf wire-format reader for tests (https://protobuf.dev/programming-guides/encoding/):
 * it splits a message into its fields, so a test can decode just the parts it checks without a
 * schema or generated code. Varints above 2^53 lose precision; nothing the tests read is that big.
 */

/** Wire types: 0 varint, 1 fixed 64-bit, 2 length-delimited, 5 fixed 32-bit. */
export type WireField =
  | { field: number; wire: 0; value: number }
  | { field: number; wire: 1; value: Buffer }
  | { field: number; wire: 2; value: Buffer }
  | { field: number; wire: 5; value: Buffer };

function readVarint(buf: Buffer, at: number): { value: number; next: number } {
  let value = 0;
  let scale = 1;
  for (let i = at; i < buf.length && i < at + 10; i++) {
    const byte = buf[i] as number;
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if ((byte & 0x80) === 0) return { value, next: i + 1 };
  }
  throw new Error(`truncated or overlong varint at byte ${at}`);
}

/** The fields of one message, in wire order; a repeated field appears once per element. */
export function wireFields(buf: Buffer): WireField[] {
  const out: WireField[] = [];
  let at = 0;
  while (at < buf.length) {
    const tag = readVarint(buf, at);
    const field = Math.floor(tag.value / 8);
    const wire = tag.value % 8;
    at = tag.next;
    if (wire === 0) {
      const v = readVarint(buf, at);
      out.push({ field, wire, value: v.value });
      at = v.next;
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      if (at + size > buf.length) throw new Error(`truncated fixed field ${field}`);
      out.push({ field, wire, value: buf.subarray(at, at + size) });
      at += size;
    } else if (wire === 2) {
      const len = readVarint(buf, at);
      const end = len.next + len.value;
      if (end > buf.length) throw new Error(`truncated field ${field}: ${len.value} bytes`);
      out.push({ field, wire, value: buf.subarray(len.next, end) });
      at = end;
    } else {
      throw new Error(`unsupported wire type ${wire} (field ${field})`);
    }
  }
  return out;
}

/** Every length-delimited value of `field` (embedded messages, strings, bytes). */
export function bytesFields(fields: readonly WireField[], field: number): Buffer[] {
  return fields.filter((f) => f.field === field && f.wire === 2).map((f) => f.value as Buffer);
}

/** The last length-delimited value of `field` (proto3: the last one wins), or undefined. */
export function bytesField(fields: readonly WireField[], field: number): Buffer | undefined {
  return bytesFields(fields, field).at(-1);
}

/** The last varint of `field`, or 0 (proto3's default). */
export function varintField(fields: readonly WireField[], field: number): number {
  const found = fields.filter((f) => f.field === field && f.wire === 0);
  return (found.at(-1)?.value as number | undefined) ?? 0;
}
