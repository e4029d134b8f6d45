import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../shared/api/errors.ts';
import { decodeSegment, splitPath } from './path-segments.ts';

function refusal(fn: () => unknown): { code: number; reason: string; message: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return { code: err.code, reason: err.reason, message: err.message };
  }
  assert.fail('expected a StatusError');
}

describe('splitPath', () => {
  it('splits the raw path on / only, then decodes each segment', () => {
    assert.deepEqual(splitPath('/api/v1/namespaces/default/configmaps/%2e%2e'), ['api', 'v1', 'namespaces', 'default', 'configmaps', '..']);
    assert.deepEqual(splitPath('/api/v1/namespaces/a%2Fb/configmaps'), ['api', 'v1', 'namespaces', 'a/b', 'configmaps']);
    assert.deepEqual(splitPath('/api/v1/configmaps/..\\..\\x'), ['api', 'v1', 'configmaps', '..\\..\\x']);
  });
  it('trims leading and trailing slashes, as kube splitPath does', () => {
    assert.deepEqual(splitPath('/api/v1/pods/'), ['api', 'v1', 'pods']);
    assert.deepEqual(splitPath('/'), []);
  });
  it('an empty segment inside the path is a 404, not skipped', () => {
    assert.deepEqual(
      refusal(() => splitPath('/api/v1/namespaces//pods')),
      { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' },
    );
  });
  it('checks every escape before routing', () => {
    assert.equal(refusal(() => splitPath('/api/v1//%zz')).message, 'invalid URL escape "%zz"');
  });
});

describe('decodeSegment', () => {
  for (const [raw, bad] of [
    ['%zz', '%zz'],
    ['%E0%A4%A', '%A'],
    ['x%', '%'],
    ['x%4', '%4'],
    ['%g0', '%g0'],
  ]) {
    it(`${raw} is a 400 worded as Go's url.EscapeError`, () => {
      assert.deepEqual(
        refusal(() => decodeSegment(raw)),
        { code: 400, reason: 'BadRequest', message: `invalid URL escape "${bad}"` },
      );
    });
  }
  it('decodes UTF-8 escapes and keeps a leading byte-order mark', () => {
    assert.equal(decodeSegment('%E2%98%83'), '☃');
    assert.equal(decodeSegment('%EF%BB%BFx'), '\ufeffx');
    assert.equal(decodeSegment('a%20b%00'), 'a b\u0000');
    assert.equal(decodeSegment('plain-name'), 'plain-name');
  });
  it('reads raw bytes of the request line (latin1 from node) as UTF-8', () => {
    assert.equal(decodeSegment(Buffer.from('☃', 'utf8').toString('latin1')), '☃');
  });
  it('invalid UTF-8 is a 400, never a lossy name', () => {
    const r = refusal(() => decodeSegment('%FF%FE'));
    assert.equal(r.code, 400);
    assert.equal(r.reason, 'BadRequest');
  });
});
