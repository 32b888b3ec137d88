/**
 * google.protobuf.Struct, as proto-loader decodes it (`{fields: {k: Value}}`, each Value naming
 * its member in the `kind` oneof), → plain JSON. SGLang and TokenSpeed report `server_args` and
 * `scheduler_info` this way; the worker labels want ordinary objects.
 *
 * The Value members are camelCase (`numberValue`, not `number_value`) despite keepCase:
 * proto-loader takes the well-known types from protobufjs's bundled descriptors, which are
 * written that way. A server building a Struct must use the same names.
 */
export interface WireValue {
  kind?: string;
  nullValue?: unknown;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: WireStruct;
  listValue?: { values?: WireValue[] };
}

export interface WireStruct {
  fields?: Record<string, WireValue>;
}

export type Json = null | number | string | boolean | Json[] | { [key: string]: Json };

export function structToJson(s: WireStruct): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(s.fields ?? {})) out[key] = valueToJson(value);
  return out;
}

export function valueToJson(v: WireValue): Json {
  switch (v.kind ?? 'nullValue') {
    case 'numberValue':
      return v.numberValue ?? 0;
    case 'stringValue':
      return v.stringValue ?? '';
    case 'boolValue':
      return v.boolValue ?? false;
    case 'structValue':
      return structToJson(v.structValue ?? {});
    case 'listValue':
      return (v.listValue?.values ?? []).map(valueToJson);
    default:
      // nullValue, or a Value with no member set: both read as JSON null.
      return null;
  }
}
