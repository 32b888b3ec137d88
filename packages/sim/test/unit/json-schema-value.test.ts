// The value a simulated engine answers under a json_schema constraint: the simplest one each
// keyword allows, references resolved, the first branch of a choice, and an end to recursion.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { valueForSchema } from '../../src/json-schema-value.js';

void describe('valueForSchema', () => {
  void it('scalars: "sim", 1, true, null; enum and const win', () => {
    assert.equal(valueForSchema({ type: 'string' }), 'sim');
    assert.equal(valueForSchema({ type: 'number' }), 1);
    assert.equal(valueForSchema({ type: 'integer' }), 1);
    assert.equal(valueForSchema({ type: 'boolean' }), true);
    assert.equal(valueForSchema({ type: 'null' }), null);
    assert.equal(valueForSchema({ type: 'string', enum: ['celsius', 'fahrenheit'] }), 'celsius');
    assert.equal(valueForSchema({ type: 'integer', enum: [7, 8] }), 7);
    assert.deepEqual(valueForSchema({ const: { a: [1] } }), { a: [1] });
    assert.equal(valueForSchema({ type: ['null', 'integer'] }), 1);
  });

  void it('anything goes: true, {} and unknown types give {}', () => {
    assert.deepEqual(valueForSchema(true), {});
    assert.deepEqual(valueForSchema({}), {});
    assert.deepEqual(valueForSchema({ type: 'frobnicate' }), {});
  });

  void it('strings: known formats, minLength and maxLength', () => {
    assert.equal(valueForSchema({ type: 'string', format: 'date' }), '2000-01-01');
    assert.equal(valueForSchema({ type: 'string', format: 'email' }), 'sim@example.com');
    assert.equal(valueForSchema({ type: 'string', minLength: 5 }), 'simmm');
    assert.equal(valueForSchema({ type: 'string', maxLength: 2 }), 'si');
    assert.equal(valueForSchema({ minLength: 1 }), 'sim', 'implied by its keywords');
  });

  void it('numbers: minimum, exclusive bounds, a maximum below 1, multipleOf', () => {
    assert.equal(valueForSchema({ type: 'number', minimum: 10 }), 10);
    assert.equal(valueForSchema({ type: 'integer', minimum: 2.5 }), 3);
    assert.equal(valueForSchema({ type: 'integer', exclusiveMinimum: 4 }), 5);
    assert.equal(valueForSchema({ type: 'integer', minimum: 4, exclusiveMinimum: true }), 5);
    assert.equal(
      valueForSchema({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 0.5 }),
      0.25,
    );
    assert.equal(valueForSchema({ type: 'number', maximum: -3 }), -3);
    assert.equal(valueForSchema({ type: 'integer', exclusiveMaximum: 1 }), 0);
    assert.equal(valueForSchema({ type: 'integer', minimum: 3, multipleOf: 5 }), 5);
  });

  void it('objects: the required properties, or every property when none is required', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer' }, c: { type: 'boolean' } },
      required: ['b', 'c'],
    };
    assert.deepEqual(valueForSchema(schema), { b: 1, c: true });
    assert.deepEqual(valueForSchema({ ...schema, required: [] }), { a: 'sim', b: 1, c: true });
    assert.deepEqual(valueForSchema({ type: 'object' }), {});
    assert.deepEqual(
      valueForSchema({ type: 'object', required: ['x'], additionalProperties: { type: 'number' } }),
      { x: 1 },
      'a required name not declared takes additionalProperties',
    );
  });

  void it('arrays: one item when items are described, minItems, maxItems, tuples', () => {
    assert.deepEqual(valueForSchema({ type: 'array', items: { type: 'string' } }), ['sim']);
    assert.deepEqual(
      valueForSchema({ type: 'array', items: { type: 'integer' }, minItems: 3 }),
      [1, 1, 1],
    );
    assert.deepEqual(valueForSchema({ type: 'array', items: { type: 'string' }, maxItems: 0 }), []);
    assert.deepEqual(valueForSchema({ type: 'array' }), []);
    assert.deepEqual(
      valueForSchema({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'null' }] }),
      ['sim', null],
    );
    assert.deepEqual(valueForSchema({ type: 'array', items: [{ type: 'boolean' }] }), [true]);
  });

  void it('anyOf / oneOf take the first branch, merged with the keywords beside it; allOf merges', () => {
    assert.equal(valueForSchema({ anyOf: [{ type: 'integer' }, { type: 'null' }] }), 1);
    assert.equal(valueForSchema({ oneOf: [{ type: 'string', enum: ['x'] }, {}] }), 'x');
    assert.deepEqual(
      valueForSchema({
        type: 'object',
        anyOf: [{ properties: { n: { type: 'number' } }, required: ['n'] }],
      }),
      { n: 1 },
    );
    assert.deepEqual(
      valueForSchema({
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { properties: { b: { type: 'boolean' } }, required: ['b'] },
        ],
      }),
      { a: 'sim', b: true },
    );
  });

  void it('$ref resolves #/$defs, #/definitions and #; a foreign ref is {}', () => {
    const schema = {
      type: 'object',
      properties: {
        unit: { $ref: '#/$defs/Unit' },
        place: { $ref: '#/definitions/Place' },
        far: { $ref: 'https://example.com/schema.json' },
      },
      $defs: { Unit: { type: 'string', enum: ['c', 'f'] } },
      definitions: { Place: { type: 'object', properties: { zip: { type: 'integer' } } } },
    };
    assert.deepEqual(valueForSchema(schema), { unit: 'c', place: { zip: 1 }, far: {} });
  });

  void it('a recursive optional $ref ends', () => {
    const tree = {
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
      required: ['name'],
    };
    assert.deepEqual(valueForSchema(tree), { name: 'sim' });
    const open = { ...tree, required: [] };
    const v = JSON.stringify(valueForSchema(open));
    assert.ok(v.length < 500, v);
    assert.match(v, /^\{"name":"sim","children":\[\{"name":"sim"/);
  });

  void it("the gateway's tool_choice: required schema gives one call of the first function", () => {
    const schema = {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        anyOf: [
          {
            properties: {
              name: { type: 'string', enum: ['get_weather'] },
              parameters: {
                type: 'object',
                properties: { city: { type: 'string' }, unit: { $ref: '#/$defs/Unit' } },
                required: ['city', 'unit'],
              },
            },
            required: ['name', 'parameters'],
          },
          { properties: { name: { enum: ['other'] } } },
        ],
      },
      $defs: { Unit: { enum: ['celsius', 'fahrenheit'] } },
    };
    assert.deepEqual(valueForSchema(schema), [
      { name: 'get_weather', parameters: { city: 'sim', unit: 'celsius' } },
    ]);
  });
});
