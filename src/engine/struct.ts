/**
 * google.protobuf.Struct, as proto-loader decodes it (`{fields: {k: Value}}`, each Value naming
 * its member in the `kind` oneof), → plain JSON. SGLang and TokenSpeed report `server_args` and
 * `scheduler_info` this way; the worker labels want ordinary objects.
 */
export interface WireValue {
  kind?: string;
  null_value?: unknown;
  number_value?: number;
  string_value?: string;
  bool_value?: boolean;
  struct_value?: WireStruct;
  list_value?: { values?: WireValue[] };
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
  switch (v.kind ?? 'null_value') {
    case 'number_value':
      return v.number_value ?? 0;
    case 'string_value':
      return v.string_value ?? '';
    case 'bool_value':
      return v.bool_value ?? false;
    case 'struct_value':
      return structToJson(v.struct_value ?? {});
    case 'list_value':
      return (v.list_value?.values ?? []).map(valueToJson);
    default:
      // null_value, or a Value with no member set: both read as JSON null.
      return null;
  }
}
