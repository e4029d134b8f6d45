// Which requests a fault's match names, and which matches are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkMatch, matches, type RequestTarget } from './match.ts';

const kubectlGetPods: RequestTarget = {
  userAgent: 'kubectl/v1.35.0 (linux/amd64) kubernetes/abcdef',
  user: 'kubernetes-admin',
  verb: 'get',
  resource: 'pods',
  subresource: '',
};

test('every field a match gives must hold', () => {
  const cases: [string, Parameters<typeof matches>[0], RequestTarget, boolean][] = [
    ['no match: everything', undefined, kubectlGetPods, true],
    ['empty match: everything', {}, kubectlGetPods, true],
    ['user agent prefix', { userAgent: 'kubectl/' }, kubectlGetPods, true],
    ['user agent is a prefix, not a substring', { userAgent: 'v1.35' }, kubectlGetPods, false],
    ['user agent is case-sensitive', { userAgent: 'Kubectl' }, kubectlGetPods, false],
    ['a user agent asked for, none sent', { userAgent: 'kubectl' }, { ...kubectlGetPods, userAgent: undefined }, false],
    ['user', { user: 'kubernetes-admin' }, kubectlGetPods, true],
    ['another user', { user: 'system:kube-scheduler' }, kubectlGetPods, false],
    ['a user asked for, none known (a WebSocket watch)', { user: 'kubernetes-admin' }, { ...kubectlGetPods, user: undefined }, false],
    ['verb', { verb: 'get' }, kubectlGetPods, true],
    ['another verb', { verb: 'list' }, kubectlGetPods, false],
    ['resource', { resource: 'pods' }, kubectlGetPods, true],
    ['another resource', { resource: 'nodes' }, kubectlGetPods, false],
    ['a resource is not its subresource', { resource: 'pods' }, { ...kubectlGetPods, subresource: 'status' }, false],
    ['resource/subresource', { resource: 'pods/status' }, { ...kubectlGetPods, subresource: 'status' }, true],
    ['a subresource is not the resource', { resource: 'pods/status' }, kubectlGetPods, false],
    ['all four', { userAgent: 'kubectl', user: 'kubernetes-admin', verb: 'get', resource: 'pods' }, kubectlGetPods, true],
    ['all four, one wrong', { userAgent: 'kubectl', user: 'kubernetes-admin', verb: 'get', resource: 'nodes' }, kubectlGetPods, false],
  ];
  for (const [name, match, target, want] of cases) assert.equal(matches(match, target), want, name);
});

test('a match from the control channel is checked field by field', () => {
  assert.equal(checkMatch(undefined), undefined);
  assert.deepEqual(checkMatch({ verb: 'list', user: '', resource: 'pods/log' }), { verb: 'list', resource: 'pods/log' });
  const refused: [unknown, RegExp][] = [
    ['pods', /^match: must be an object$/],
    [{ verb: 'GET' }, /^match\.verb: "GET" is not a kube verb/],
    [{ resource: 'Pods' }, /^match\.resource: "Pods" must be a resource plural/],
    [{ user: 7 }, /^match\.user: must be a string$/],
    [{ namespace: 'default' }, /^match\.namespace: unknown field/],
  ];
  for (const [raw, message] of refused) assert.throws(() => checkMatch(raw), { message }, JSON.stringify(raw));
});
