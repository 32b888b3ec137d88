// Exact reading of `bootstrap_room`. Rooms are 63-bit integers sent as bare JSON numbers (SGLang
// mini_lb and SMG mint them in [0, 2^63-1]); JSON.parse turns them into doubles and loses digits,
// and Node 20's JSON.parse gives revivers no access to the source text. So the room is taken from
// the raw body: a small scanner finds the top-level field and returns its source text verbatim.

const WS = new Set([' ', '\t', '\n', '\r']);

class ScanError extends Error {}

function skipWs(text: string, i: number): number {
  while (i < text.length && WS.has(text[i] ?? '')) i++;
  return i;
}

/** Index just past the string starting at `i` (text[i] is the opening quote). */
function skipString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\\') j++;
    else if (c === '"') return j + 1;
  }
  throw new ScanError('unterminated string');
}

/** Index just past the JSON value starting at `i`. */
function skipValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return skipString(text, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const d = text[j];
      if (d === '"') j = skipString(text, j) - 1;
      else if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') {
        if (--depth === 0) return j + 1;
      }
    }
    throw new ScanError('unterminated container');
  }
  let j = i;
  while (j < text.length && !WS.has(text[j] ?? '') && !',}]'.includes(text[j] ?? '')) j++;
  if (j === i) throw new ScanError('missing value');
  return j;
}

/**
 * Source text of the top-level field `key` of the JSON object in `text` (the last one if the key
 * repeats, as JSON.parse does), or undefined if absent. Assumes `text` already parsed as JSON.
 */
export function rawTopLevelField(text: string, key: string): string | undefined {
  let found: string | undefined;
  try {
    let i = skipWs(text, 0);
    if (text[i] !== '{') return undefined;
    i = skipWs(text, i + 1);
    while (i < text.length && text[i] !== '}') {
      const keyEnd = skipString(text, i);
      const name = JSON.parse(text.slice(i, keyEnd)) as string;
      i = skipWs(text, keyEnd);
      i = skipWs(text, i + 1); // past ':'
      const valueEnd = skipValue(text, i);
      if (name === key) found = text.slice(i, valueEnd);
      i = skipWs(text, valueEnd);
      if (text[i] === ',') i = skipWs(text, i + 1);
    }
  } catch {
    return undefined;
  }
  return found;
}

const ROOM_RE = /^-?\d+$/;

export type RoomsField =
  { ok: true; rooms: string[] | undefined; batch: boolean } | { ok: false; message: string };

/**
 * Reads `bootstrap_room` from a raw JSON body: an integer (or a string of digits) gives one room,
 * an array gives one room per batch item; null or absent gives none. Rooms are returned as their
 * exact decimal text, which is the key both PD legs use.
 */
export function readRooms(raw: string): RoomsField {
  if (!raw.includes('"bootstrap_room"')) return { ok: true, rooms: undefined, batch: false };
  const text = rawTopLevelField(raw, 'bootstrap_room');
  if (text === undefined || text === 'null') return { ok: true, rooms: undefined, batch: false };
  if (text.startsWith('[')) {
    const inner = text.slice(1, -1).trim();
    const parts = inner === '' ? [] : inner.split(',').map((p) => p.trim());
    const rooms: string[] = [];
    for (const p of parts) {
      const room = roomText(p);
      if (room === undefined) return bad(text);
      rooms.push(room);
    }
    return { ok: true, rooms, batch: true };
  }
  const room = roomText(text);
  return room === undefined ? bad(text) : { ok: true, rooms: [room], batch: false };
}

function roomText(p: string): string | undefined {
  const digits = p.startsWith('"') && p.endsWith('"') ? p.slice(1, -1) : p;
  return ROOM_RE.test(digits) ? digits : undefined;
}

function bad(text: string): RoomsField {
  return {
    ok: false,
    message: `'bootstrap_room' must be an integer or an array of integers, got ${text.slice(0, 40)}`,
  };
}
