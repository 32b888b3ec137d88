// A small JSON-schema checker for the simulator's tests: the keywords the tests' schemas use
// (type, properties, required, additionalProperties, items, prefixItems, min/maxItems, enum, const,
// min/maxLength, minimum/maximum and their exclusive forms, multipleOf, anyOf/oneOf/allOf, local
// $ref). Written independently of json-schema-value.ts, which builds the values it checks: a value
// built wrong must not pass because the same reading of the schema built and checked it.

type Schema = Record<string, unknown>;

/** Why `value` fails `schema`, one line per failure; empty when it passes. */
export function schemaErrors(value: unknown, schema: unknown, root: unknown = schema): string[] {
  return check(value, schema, root, '$');
}

function check(v: unknown, s: unknown, root: unknown, at: string): string[] {
  if (s === true || s === undefined) return [];
  if (s === false) return [`${at}: no value is allowed`];
  if (typeof s !== 'object' || s === null) return [`${at}: bad schema`];
  const schema = s as Schema;
  const errors: string[] = [];
  const ref = schema['$ref'];
  if (typeof ref === 'string') errors.push(...check(v, pointer(root, ref), root, at));
  if ('const' in schema && JSON.stringify(v) !== JSON.stringify(schema['const'])) {
    errors.push(`${at}: not the const`);
  }
  const en = schema['enum'];
  if (Array.isArray(en) && !en.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    errors.push(`${at}: not in the enum`);
  }
  const type = schema['type'];
  const types = Array.isArray(type) ? (type as string[]) : typeof type === 'string' ? [type] : [];
  if (types.length > 0 && !types.some((t) => hasType(v, t))) {
    errors.push(`${at}: not of type ${types.join('|')}`);
  }
  for (const sub of list(schema['allOf'])) errors.push(...check(v, sub, root, at));
  for (const key of ['anyOf', 'oneOf']) {
    const branches = list(schema[key]);
    const passing = branches.filter((b) => check(v, b, root, at).length === 0).length;
    if (branches.length > 0 && (key === 'anyOf' ? passing === 0 : passing !== 1)) {
      errors.push(`${at}: ${key} has ${passing} passing branches`);
    }
  }
  if (typeof v === 'string') errors.push(...stringErrors(v, schema, at));
  if (typeof v === 'number') errors.push(...numberErrors(v, schema, at));
  if (Array.isArray(v)) errors.push(...arrayErrors(v, schema, root, at));
  else if (typeof v === 'object' && v !== null) {
    errors.push(...objectErrors(v as Schema, schema, root, at));
  }
  return errors;
}

function hasType(v: unknown, t: string): boolean {
  switch (t) {
    case 'integer':
      return Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'null':
      return v === null;
    default:
      return typeof v === t;
  }
}

function stringErrors(v: string, s: Schema, at: string): string[] {
  const errors: string[] = [];
  if (typeof s['minLength'] === 'number' && v.length < s['minLength']) errors.push(`${at}: short`);
  if (typeof s['maxLength'] === 'number' && v.length > s['maxLength']) errors.push(`${at}: long`);
  return errors;
}

function numberErrors(v: number, s: Schema, at: string): string[] {
  const errors: string[] = [];
  const n = (k: string): number | undefined => (typeof s[k] === 'number' ? s[k] : undefined);
  const min = n('minimum');
  const max = n('maximum');
  const xmin = n('exclusiveMinimum');
  const xmax = n('exclusiveMaximum');
  const step = n('multipleOf');
  if (min !== undefined && v < min) errors.push(`${at}: below minimum`);
  if (max !== undefined && v > max) errors.push(`${at}: above maximum`);
  if (xmin !== undefined && v <= xmin) errors.push(`${at}: not above exclusiveMinimum`);
  if (xmax !== undefined && v >= xmax) errors.push(`${at}: not below exclusiveMaximum`);
  if (step !== undefined && !Number.isInteger(v / step)) errors.push(`${at}: not a multiple`);
  return errors;
}

function arrayErrors(v: unknown[], s: Schema, root: unknown, at: string): string[] {
  const errors: string[] = [];
  const prefix = list(s['prefixItems']);
  v.forEach((item, i) => {
    const sub = i < prefix.length ? prefix[i] : s['items'];
    errors.push(...check(item, sub, root, `${at}[${i}]`));
  });
  if (typeof s['minItems'] === 'number' && v.length < s['minItems']) errors.push(`${at}: few`);
  if (typeof s['maxItems'] === 'number' && v.length > s['maxItems']) errors.push(`${at}: many`);
  return errors;
}

function objectErrors(v: Schema, s: Schema, root: unknown, at: string): string[] {
  const errors: string[] = [];
  const props = (s['properties'] ?? {}) as Schema;
  for (const key of list(s['required'])) {
    if (typeof key === 'string' && !(key in v)) errors.push(`${at}: ${key} is missing`);
  }
  for (const [key, value] of Object.entries(v)) {
    const sub = key in props ? props[key] : s['additionalProperties'];
    errors.push(...check(value, sub, root, `${at}.${key}`));
  }
  return errors;
}

function pointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  let node = root;
  for (const part of ref.replace(/^#\//, '').split('/'))
    node = (node as Schema | undefined)?.[part];
  return node;
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
