// A JSON value that satisfies a JSON schema: what a simulated engine answers under a json_schema
// constraint. Gateway tests need the answer to parse and to match the schema (tool calls forced by
// `tool_choice`, `response_format`), not to vary, so each keyword takes its simplest valid choice.
// Not a validator: `pattern`, `uniqueItems`, `not`, `if`/`then` and property-count limits are not
// honoured.

type Schema = Record<string, unknown>;

/** A `$ref` cycle through required properties has no finite instance; stop walking there. */
const MAX_DEPTH = 32;
/**
 * Optional content (the properties of an object that requires none, the one item of an array
 * that needs none) is only added this close to the root, so a recursive optional `$ref` ends.
 */
const OPTIONAL_DEPTH = 4;

/** String formats a tool schema commonly names, each with a valid example. */
const FORMATS: Readonly<Record<string, string>> = {
  'date-time': '2000-01-01T00:00:00Z',
  date: '2000-01-01',
  time: '00:00:00Z',
  email: 'sim@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
  ipv4: '127.0.0.1',
  hostname: 'example.com',
};

/** A value valid under `schema` (a parsed JSON schema; `true` or `{}` accept anything). */
export function valueForSchema(schema: unknown): unknown {
  return valueAt(schema, schema, 0);
}

function valueAt(root: unknown, node: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH || !isSchema(node)) return {};
  const s = flatten(root, node);
  if ('const' in s) return s['const'];
  if (Array.isArray(s['enum']) && s['enum'].length > 0) return s['enum'][0];
  switch (typeOf(s)) {
    case 'object':
      return objectValue(root, s, depth);
    case 'array':
      return arrayValue(root, s, depth);
    case 'string':
      return stringValue(s);
    case 'integer':
      return numberValue(s, true);
    case 'number':
      return numberValue(s, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}

/**
 * One schema with no `$ref`, `anyOf`, `oneOf` or `allOf` left: a reference is replaced by its
 * target, a choice by its first branch and a conjunction by its parts, each merged with the
 * keywords beside it (a branch often leaves `type` to its parent, as the gateway's
 * `tool_choice: required` schema does).
 */
function flatten(root: unknown, node: Schema): Schema {
  let s = node;
  for (let hops = 0; hops < MAX_DEPTH; hops++) {
    const { $ref, anyOf, oneOf, allOf, ...rest } = s;
    if (typeof $ref === 'string') s = merge(rest, asSchema(resolve(root, $ref)));
    else if (Array.isArray(anyOf) && anyOf.length > 0) s = merge(rest, asSchema(anyOf[0]));
    else if (Array.isArray(oneOf) && oneOf.length > 0) s = merge(rest, asSchema(oneOf[0]));
    else if (Array.isArray(allOf)) s = allOf.map(asSchema).reduce(merge, rest);
    else return s;
  }
  return s;
}

function merge(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a, ...b };
  const props = { ...asSchema(a['properties']), ...asSchema(b['properties']) };
  if (Object.keys(props).length > 0) out['properties'] = props;
  const required = [...new Set([...strings(a['required']), ...strings(b['required'])])];
  if (required.length > 0) out['required'] = required;
  return out;
}

/** A local JSON pointer (`#`, `#/$defs/Name`, `#/definitions/Name`); anything else is `{}`. */
function resolve(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return {};
  let at: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof at !== 'object' || at === null) return {};
    at = (at as Schema)[key];
  }
  return at ?? {};
}

/** The declared type (the first non-null one of a list), else the one its keywords imply. */
function typeOf(s: Schema): string {
  const t = s['type'];
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const first: unknown = (t as unknown[]).find((x) => x !== 'null') ?? t[0];
    return typeof first === 'string' ? first : 'any';
  }
  if ('properties' in s || 'required' in s || 'additionalProperties' in s) return 'object';
  if ('items' in s || 'prefixItems' in s || 'minItems' in s) return 'array';
  if ('minLength' in s || 'maxLength' in s || 'format' in s || 'pattern' in s) return 'string';
  if ('minimum' in s || 'maximum' in s || 'multipleOf' in s) return 'number';
  return 'any';
}

/** The required properties; an object that requires none gets all it declares. */
function objectValue(root: unknown, s: Schema, depth: number): Schema {
  const props = asSchema(s['properties']);
  const required = strings(s['required']);
  const keys = required.length > 0 ? required : depth < OPTIONAL_DEPTH ? Object.keys(props) : [];
  const extra = s['additionalProperties'];
  const out: Schema = {};
  for (const key of keys) {
    const sub = key in props ? props[key] : isSchema(extra) ? extra : true;
    out[key] = valueAt(root, sub, depth + 1);
  }
  return out;
}

/** `minItems` items, and one when the schema describes its items so the array is not empty. */
function arrayValue(root: unknown, s: Schema, depth: number): unknown[] {
  // Draft 2020-12 tuples are prefixItems + items; older drafts give items as a list.
  const tuple = Array.isArray(s['items']);
  const prefix = asList(tuple ? s['items'] : s['prefixItems']);
  const rest = tuple ? s['additionalItems'] : s['items'];
  const min = Math.max(num(s['minItems']) ?? 0, prefix.length);
  const wanted = rest !== undefined && rest !== false && depth < OPTIONAL_DEPTH ? 1 : 0;
  const count = Math.min(num(s['maxItems']) ?? Infinity, Math.max(min, wanted));
  const out: unknown[] = [];
  for (let i = 0; i < count; i++)
    out.push(valueAt(root, i < prefix.length ? prefix[i] : (rest ?? true), depth + 1));
  return out;
}

function stringValue(s: Schema): string {
  const format = typeof s['format'] === 'string' ? FORMATS[s['format']] : undefined;
  if (format !== undefined) return format;
  const min = num(s['minLength']) ?? 0;
  const max = num(s['maxLength']) ?? Infinity;
  return 'sim'.padEnd(min, 'm').slice(0, max);
}

/** 1, or the lowest value the bounds allow (draft 4's boolean exclusive bounds included). */
function numberValue(s: Schema, integer: boolean): number {
  const lo = bound(s, 'minimum', 'exclusiveMinimum');
  const hi = bound(s, 'maximum', 'exclusiveMaximum');
  let v = 1;
  if (lo !== undefined) {
    if (!lo.exclusive) v = integer ? Math.ceil(lo.at) : lo.at;
    else if (integer) v = Math.floor(lo.at) + 1;
    // Between two exclusive-ish bounds a step of 1 may overshoot: take the middle.
    else v = hi === undefined ? lo.at + 1 : (lo.at + hi.at) / 2;
  } else if (hi !== undefined && (hi.at < 1 || (hi.exclusive && hi.at === 1))) {
    v = hi.exclusive ? hi.at - 1 : hi.at;
    if (integer) v = Math.floor(v);
  }
  const step = num(s['multipleOf']);
  if (step !== undefined && step > 0 && !Number.isInteger(v / step)) v = Math.ceil(v / step) * step;
  return v;
}

function bound(
  s: Schema,
  inclusive: string,
  exclusive: string,
): { at: number; exclusive: boolean } | undefined {
  const ex = s[exclusive];
  if (typeof ex === 'number') return { at: ex, exclusive: true };
  const at = num(s[inclusive]);
  return at === undefined ? undefined : { at, exclusive: ex === true };
}

function isSchema(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function asSchema(v: unknown): Schema {
  return isSchema(v) ? v : {};
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
