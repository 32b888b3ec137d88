/**
 * Reading JSON that is still arriving. A streamed tool call is a JSON object cut at any character,
 * and its parser must know from the text so far whether it is still valid JSON, where it ends once
 * complete, and which top-level keys it has with where each value's text lies (the call's `name`
 * once its string closes, how far its `arguments` extend). `JsonScanner` reads one value and keeps
 * its state between calls, so a buffer that grows delta by delta is read once in all.
 *
 * The scanner validates the whole JSON grammar (RFC 8259) as it goes, so "invalid" is known at the
 * first character that no continuation could repair, and "complete" agrees with `JSON.parse`.
 */

/** One top-level member of an object: its key and where its value's text lies. */
export interface JsonMember {
  key: string;
  /** Index of the value's first character. */
  start: number;
  /** Index just past the value, or -1 while the value is still being read. */
  end: number;
}

export type ScanStatus = 'partial' | 'complete' | 'invalid';

// What the scanner expects next.
const VALUE = 0; // a value must start
const FIRST_ITEM = 1; // after `[`: a value or `]`
const FIRST_KEY = 2; // after `{`: a key or `}`
const KEY = 3; // after `,` in an object
const COLON = 4;
const AFTER = 5; // after a value inside a container: `,` or the closer
const STRING = 6;
const ESCAPE = 7; // after a backslash in a string
const HEX = 8; // inside `\uXXXX`
const NUMBER = 9;
const LITERAL = 10; // inside true, false or null

// Where a number is: each state names what has been read last.
const N_MINUS = 0;
const N_ZERO = 1; // a leading 0: no more integer digits may follow
const N_INT = 2;
const N_DOT = 3;
const N_FRAC = 4;
const N_E = 5;
const N_E_SIGN = 6;
const N_EXP = 7;

const OBJ = 123; // `{`, also the stack's marker for an object
const ARR = 91; // `[`

/** Whether `c` is JSON whitespace (space, tab, line feed, carriage return). */
export function isJsonWhitespace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

/** The characters a backslash may escape: " \ / b f n r t (u is handled apart). */
function isSimpleEscape(c: number): boolean {
  return (
    c === 34 || c === 92 || c === 47 || c === 98 || c === 102 || c === 110 || c === 114 || c === 116
  );
}

/**
 * An incremental reader of one JSON value starting at `start` (leading whitespace allowed). Call
 * `scan` as the text grows, each time with the text from the read position on (or the whole text
 * so far); positions are absolute either way. A number at the very end of the text stays partial,
 * since more digits may follow.
 */
export class JsonScanner {
  status: ScanStatus = 'partial';
  /** The next index to read; once invalid, the index of the offending character. */
  pos: number;
  /** Index just past the value once complete, else -1. */
  end = -1;
  /** The members of the value when it is an object, in order; the last may still be read. */
  readonly members: JsonMember[] = [];

  private readonly stack: number[] = [];
  private mode = VALUE;
  private stringIsKey = false;
  private keyHead = ''; // a root key's raw text from segments already read
  private keyHeadEnd = 0; // absolute index just past `keyHead`
  private key = '';
  private base = 0; // absolute index of the segment being read
  private hexLeft = 0;
  private numberState = N_INT;
  private literal = '';
  private literalAt = 0;

  constructor(start: number) {
    this.pos = start;
  }

  /**
   * Reads on through `text`, which holds the characters from absolute index `textStart` on and
   * must include the read position `pos`.
   */
  scan(text: string, textStart = 0): ScanStatus {
    this.base = textStart;
    let i = this.pos - textStart; // relative to `text`, like every index inside the scan
    const n = text.length;
    while (i < n && this.status === 'partial') {
      const c = text.charCodeAt(i);
      switch (this.mode) {
        case STRING:
          i = this.readString(text, i);
          break;
        case ESCAPE:
          if (c === 117) {
            this.hexLeft = 4;
            this.mode = HEX;
          } else if (isSimpleEscape(c)) this.mode = STRING;
          else return this.fail(i);
          i++;
          break;
        case HEX:
          if (!isHex(c)) return this.fail(i);
          if (--this.hexLeft === 0) this.mode = STRING;
          i++;
          break;
        case NUMBER:
          i = this.readNumber(c, i);
          break;
        case LITERAL:
          if (c !== this.literal.charCodeAt(this.literalAt)) return this.fail(i);
          i++;
          if (++this.literalAt === this.literal.length) this.endValue(i);
          break;
        default:
          i = isJsonWhitespace(c) ? i + 1 : this.readStructural(c, i);
      }
    }
    if (this.status === 'partial' && this.inRootKey()) {
      // The key goes on in the next segment: keep the part read so far.
      this.keyHead += text.slice(this.keyHeadEnd - textStart);
      this.keyHeadEnd = textStart + n;
    }
    if (this.status !== 'invalid') this.pos = i + textStart;
    return this.status;
  }

  /** Where member `m`'s value text ends so far (the read position while it is being read). */
  valueEnd(m: JsonMember): number {
    return m.end === -1 ? this.pos : m.end;
  }

  private fail(i: number): ScanStatus {
    this.status = 'invalid';
    this.pos = i + this.base;
    return this.status;
  }

  /** Punctuation, or the first character of a value; returns the next index to read. */
  private readStructural(c: number, i: number): number {
    switch (this.mode) {
      case FIRST_ITEM:
        if (c === 93) return this.closeContainer(i);
        return this.startValue(c, i);
      case VALUE:
        return this.startValue(c, i);
      case FIRST_KEY:
        if (c === 125) return this.closeContainer(i);
        return this.startKey(c, i);
      case KEY:
        return this.startKey(c, i);
      case COLON:
        if (c !== 58) return this.failAt(i);
        this.mode = VALUE;
        return i + 1;
      default: {
        // AFTER: a value inside a container has ended.
        const top = this.stack[this.stack.length - 1];
        if (c === 44) {
          this.mode = top === OBJ ? KEY : VALUE;
          return i + 1;
        }
        if ((c === 125 && top === OBJ) || (c === 93 && top === ARR)) return this.closeContainer(i);
        return this.failAt(i);
      }
    }
  }

  private failAt(i: number): number {
    this.fail(i);
    return i;
  }

  private startKey(c: number, i: number): number {
    if (c !== 34) return this.failAt(i);
    this.stringIsKey = true;
    this.keyHead = '';
    this.keyHeadEnd = i + this.base; // the key's opening quote
    this.mode = STRING;
    return i + 1;
  }

  private startValue(c: number, i: number): number {
    if (c === OBJ || c === ARR) {
      this.beginValue(i);
      this.stack.push(c);
      this.mode = c === OBJ ? FIRST_KEY : FIRST_ITEM;
    } else if (c === 34) {
      this.beginValue(i);
      this.stringIsKey = false;
      this.mode = STRING;
    } else if (c === 45 || isDigit(c)) {
      this.beginValue(i);
      this.numberState = c === 45 ? N_MINUS : c === 48 ? N_ZERO : N_INT;
      this.mode = NUMBER;
    } else if (c === 116 || c === 102 || c === 110) {
      this.beginValue(i);
      this.literal = c === 116 ? 'true' : c === 102 ? 'false' : 'null';
      this.literalAt = 1;
      this.mode = LITERAL;
    } else return this.failAt(i);
    return i + 1;
  }

  /** Reads string characters up to the closing quote or a backslash, whichever comes first. */
  private readString(text: string, i: number): number {
    const n = text.length;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        this.closeString(text, i);
        return i + 1;
      }
      if (c === 92) {
        this.mode = ESCAPE;
        return i + 1;
      }
      // JSON forbids raw control characters inside strings.
      if (c < 0x20) return this.failAt(i);
    }
    return i;
  }

  private closeString(text: string, i: number): void {
    if (!this.stringIsKey) return this.endValue(i + 1);
    // Only the root object's keys are decoded: the parsers look up members by key.
    if (this.atRootMember()) {
      const raw = this.keyHead + text.slice(this.keyHeadEnd - this.base, i + 1);
      this.key = JSON.parse(raw) as string;
    }
    this.mode = COLON;
  }

  /** One number character, or the character after the number; returns the next index to read. */
  private readNumber(c: number, i: number): number {
    const digit = isDigit(c);
    switch (this.numberState) {
      case N_MINUS:
        if (!digit) return this.failAt(i);
        this.numberState = c === 48 ? N_ZERO : N_INT;
        return i + 1;
      case N_DOT:
      case N_E_SIGN:
        if (!digit) return this.failAt(i);
        this.numberState = this.numberState === N_DOT ? N_FRAC : N_EXP;
        return i + 1;
      case N_E:
        if (c === 43 || c === 45) this.numberState = N_E_SIGN;
        else if (digit) this.numberState = N_EXP;
        else return this.failAt(i);
        return i + 1;
      default:
        // N_ZERO, N_INT, N_FRAC, N_EXP: a number may end here.
        if (digit && this.numberState !== N_ZERO) return i + 1;
        if (c === 46 && (this.numberState === N_ZERO || this.numberState === N_INT)) {
          this.numberState = N_DOT;
          return i + 1;
        }
        if ((c === 101 || c === 69) && this.numberState !== N_EXP) {
          this.numberState = N_E;
          return i + 1;
        }
        // The number ended before `c`, which is read again as what follows the number.
        this.endValue(i);
        return i;
    }
  }

  private closeContainer(i: number): number {
    this.stack.pop();
    this.endValue(i + 1);
    return i + 1;
  }

  /** Whether the scanner is directly inside the root object, where members are recorded. */
  private atRootMember(): boolean {
    return this.stack.length === 1 && this.stack[0] === OBJ;
  }

  /** Whether the scanner is inside one of the root object's keys. */
  private inRootKey(): boolean {
    const inString = this.mode === STRING || this.mode === ESCAPE || this.mode === HEX;
    return inString && this.stringIsKey && this.atRootMember();
  }

  private beginValue(i: number): void {
    if (this.atRootMember()) this.members.push({ key: this.key, start: i + this.base, end: -1 });
  }

  /** `end` is relative to the segment being read. */
  private endValue(end: number): void {
    end += this.base;
    if (this.stack.length === 0) {
      this.status = 'complete';
      this.end = end;
      return;
    }
    if (this.atRootMember()) {
      const last = this.members[this.members.length - 1];
      if (last !== undefined && last.end === -1) last.end = end;
    }
    this.mode = AFTER;
  }
}

/** Where the JSON value at `from` ends: `end` is past it when complete, else where reading stopped. */
export function scanJsonValue(
  text: string,
  from = 0,
): { end: number; complete: boolean; valid: boolean } {
  const scanner = new JsonScanner(from);
  const status = scanner.scan(text);
  return {
    end: status === 'complete' ? scanner.end : scanner.pos,
    complete: status === 'complete',
    valid: status !== 'invalid',
  };
}

/**
 * The top-level members of the (possibly unfinished) object at `from`, each with its value's text
 * so far, and whether the object is complete. Undefined when the value there is not an object.
 */
export function readJsonObject(
  text: string,
  from = 0,
): { members: (JsonMember & { text: string })[]; status: ScanStatus } | undefined {
  const scanner = new JsonScanner(from);
  const status = scanner.scan(text);
  let first = from;
  while (first < text.length && isJsonWhitespace(text.charCodeAt(first))) first++;
  if (text.charCodeAt(first) !== OBJ) return undefined;
  const members = scanner.members.map((m) => ({
    ...m,
    text: text.slice(m.start, scanner.valueEnd(m)),
  }));
  return { members, status };
}
