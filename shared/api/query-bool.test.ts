import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryBool, queryFlag } from './query-bool.ts';

test('boolean query parameters read as kube reads them', () => {
  const cases: [string, boolean | undefined][] = [
    ['', undefined],
    ['watch=true', true],
    ['watch=True', true],
    ['watch=TRUE', true],
    ['watch=1', true],
    ['watch=', true],
    ['watch=yes', true],
    ['watch=false', false],
    ['watch=False', false],
    ['watch=FALSE', false],
    ['watch=0', false],
  ];
  for (const [qs, want] of cases) {
    assert.equal(queryBool(new URLSearchParams(qs), 'watch'), want, qs);
    assert.equal(queryFlag(new URLSearchParams(qs), 'watch'), want ?? false, qs);
  }
});
