// Which ids a gRPC choice answers and why it ends: answer ids then EOS, cut by the first stop
// token (EOS unless ignore_eos, or a stop_token_id) or by the output cap.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allTokens, planChoice } from '../../src/grpc-answer.js';

const EOS = 9;
const rules = (maxNewTokens: number, stop: number[] = [], ignoreEos = false) => ({
  maxNewTokens,
  stopTokenIds: new Set(stop),
  ignoreEos,
});

void describe('planChoice', () => {
  void it('answer then EOS: stop, matched EOS', () => {
    const p = planChoice([5, 6, 7], EOS, rules(100));
    assert.deepEqual(allTokens(p), [5, 6, 7, EOS]);
    assert.equal(p.finish, 'stop');
    assert.equal(p.matched, EOS);
  });

  void it('the cap wins when it comes first, EOS included at the cap', () => {
    assert.deepEqual(planChoice([5, 6, 7], EOS, rules(2)), {
      cycle: [5, 6, 7, EOS],
      length: 2,
      finish: 'length',
      matched: undefined,
    });
    const atCap = planChoice([5, 6, 7], EOS, rules(4));
    assert.equal(atCap.finish, 'stop');
    assert.equal(planChoice([5], EOS, rules(0)).length, 0);
  });

  void it('ignore_eos cycles through EOS to the cap; a stop token still stops', () => {
    const p = planChoice([5, 6], EOS, rules(7, [], true));
    assert.deepEqual(allTokens(p), [5, 6, EOS, 5, 6, EOS, 5]);
    assert.equal(p.finish, 'length');
    const s = planChoice([5, 6], EOS, rules(7, [6], true));
    assert.deepEqual([allTokens(s), s.finish, s.matched], [[5, 6], 'stop', 6]);
  });

  void it('without an EOS id the answer just ends with stop', () => {
    const p = planChoice([5, 6], undefined, rules(10));
    assert.deepEqual([allTokens(p), p.finish, p.matched], [[5, 6], 'stop', undefined]);
    assert.equal(planChoice([], undefined, rules(10, [], true)).length, 0);
  });
});
