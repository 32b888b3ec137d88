// Label selectors as SMG's discovery flags take them: exact key=value pairs, all required, an
// empty selector matching nothing; one server-side selector shared by the PD roles.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  matchesSelector,
  parseSelector,
  selectorEntryProblem,
  selectorString,
  serverSelector,
} from '../../../src/discovery/kubernetes/selector.js';

void describe('label selectors', () => {
  it('splits each entry at its first =, a repeated key keeping its last value', () => {
    const selector = parseSelector(['app=sglang', 'role=a', 'role=b']);
    assert.deepEqual(
      [...selector],
      [
        ['app', 'sglang'],
        ['role', 'b'],
      ],
    );
    assert.equal(selectorString(selector), 'app=sglang,role=b');
  });

  it('matches a pod only when it carries every pair; an empty selector matches nothing', () => {
    const selector = parseSelector(['app=sglang', 'tier=gpu']);
    assert.equal(matchesSelector({ app: 'sglang', tier: 'gpu', extra: 'x' }, selector), true);
    assert.equal(matchesSelector({ app: 'sglang' }, selector), false);
    assert.equal(matchesSelector({ app: 'sglang', tier: 'cpu' }, selector), false);
    assert.equal(matchesSelector(undefined, selector), false);
    assert.equal(matchesSelector({ app: 'sglang' }, new Map()), false);
  });

  it('accepts Kubernetes label pairs and refuses what the API server would refuse', () => {
    for (const ok of ['app=sglang', 'app.kubernetes.io/name=worker', 'role=', 'a=b_c-d.e']) {
      assert.equal(selectorEntryProblem(ok), undefined, ok);
    }
    assert.equal(selectorEntryProblem('app'), 'expects key=value');
    assert.equal(selectorEntryProblem('=x'), 'expects key=value');
    assert.match(selectorEntryProblem('bad key=x') ?? '', /label key/);
    assert.match(selectorEntryProblem('app=a b') ?? '', /label value/);
    assert.match(selectorEntryProblem('app=a=b') ?? '', /label value/);
  });

  it('sends the API server the pairs every PD role shares, or none', () => {
    const prefill = parseSelector(['app=sglang', 'role=prefill']);
    const decode = parseSelector(['app=sglang', 'role=decode']);
    assert.equal(selectorString(serverSelector([prefill, decode])), 'app=sglang');
    assert.equal(selectorString(serverSelector([prefill, new Map()])), 'app=sglang,role=prefill');
    assert.equal(selectorString(serverSelector([parseSelector(['a=1']), decode])), '');
    assert.equal(selectorString(serverSelector([])), '');
  });
});
