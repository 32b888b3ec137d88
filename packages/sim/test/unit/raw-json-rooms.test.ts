// Exact bootstrap rooms read from the raw body: digits above 2^53 survive, arrays give one room
// per item, and only the top-level field counts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rawTopLevelField, readRooms } from '../../src/raw-json.js';

void describe('readRooms', () => {
  void it('keeps every digit of a 63- or 64-bit room', () => {
    const raw = '{"text":"x","bootstrap_room":9223372036854775807}';
    assert.equal(
      String((JSON.parse(raw) as { bootstrap_room: number }).bootstrap_room),
      '9223372036854776000',
      'JSON.parse loses it',
    );
    assert.deepEqual(readRooms(raw), { ok: true, rooms: ['9223372036854775807'], batch: false });
    assert.deepEqual(readRooms('{"bootstrap_room" : 18446744073709551615 }'), {
      ok: true,
      rooms: ['18446744073709551615'],
      batch: false,
    });
  });

  void it('reads arrays, strings of digits, null and absence', () => {
    assert.deepEqual(readRooms('{"bootstrap_room":[1, "22" ,333]}'), {
      ok: true,
      rooms: ['1', '22', '333'],
      batch: true,
    });
    assert.deepEqual(readRooms('{"bootstrap_room":null}'), {
      ok: true,
      rooms: undefined,
      batch: false,
    });
    assert.deepEqual(readRooms('{"text":"no room"}'), { ok: true, rooms: undefined, batch: false });
  });

  void it('ignores the name inside strings and nested objects, and takes the last duplicate', () => {
    const raw =
      '{"text":"\\"bootstrap_room\\":5","meta":{"bootstrap_room":6},"bootstrap_room":7,"bootstrap_room":8}';
    assert.deepEqual(readRooms(raw), { ok: true, rooms: ['8'], batch: false });
  });

  void it('rejects fractions, exponents, booleans and objects', () => {
    for (const v of ['1.5', '1e20', 'true', '{"a":1}', '[1,2.5]', '"12a"']) {
      assert.equal(readRooms(`{"bootstrap_room":${v}}`).ok, false, v);
    }
  });

  void it('rawTopLevelField returns the value source text verbatim', () => {
    assert.equal(rawTopLevelField('{"a": [1, {"b": "}"}] , "c":2}', 'a'), '[1, {"b": "}"}]');
    assert.equal(rawTopLevelField('[1,2]', 'a'), undefined);
  });
});
