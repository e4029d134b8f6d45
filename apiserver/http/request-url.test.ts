import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestUrl } from './request-url.ts';

describe('parseRequestUrl', () => {
  it('keeps the path as sent: no dot-segment resolution, no backslash rewriting', () => {
    for (const path of [
      '/api/v1/namespaces/default/configmaps/%2e%2e',
      '/api/v1/namespaces/default/configmaps/..',
      '/a/./b',
      '/a\\b',
      '/a%2Fb',
      '/%zz',
    ]) {
      assert.equal(parseRequestUrl(path).pathname, path);
    }
  });
  it('a leading // is a path, not a host, and nothing throws', () => {
    assert.equal(parseRequestUrl('//').pathname, '//');
    assert.equal(parseRequestUrl('//evil/api/v1/secrets').pathname, '//evil/api/v1/secrets');
    assert.equal(parseRequestUrl(undefined).pathname, '/');
    assert.equal(parseRequestUrl('').pathname, '/');
  });
  it('splits the query off and decodes it leniently', () => {
    const u = parseRequestUrl('/api/v1/pods?watch=1&labelSelector=a%3Db&bad=%zz');
    assert.equal(u.pathname, '/api/v1/pods');
    assert.equal(u.searchParams.get('watch'), '1');
    assert.equal(u.searchParams.get('labelSelector'), 'a=b');
    assert.equal(u.searchParams.get('bad'), '%zz');
  });
  it('reads the path of an absolute-form target', () => {
    const u = parseRequestUrl('http://127.0.0.1:6443/api/v1/pods?limit=1');
    assert.equal(u.pathname, '/api/v1/pods');
    assert.equal(u.searchParams.get('limit'), '1');
    assert.equal(parseRequestUrl('http://host').pathname, '/');
  });
});
