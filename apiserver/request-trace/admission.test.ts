// Traced admission plugins and the trace routes, without a server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findResource } from '../../shared/api/resources.ts';
import { StatusError } from '../../shared/api/errors.ts';
import { AdmissionChain, type AdmissionAttributes, type AdmissionPlugin } from '../admission/types.ts';
import type { ObjectToStore } from '../storage/types.ts';
import type { Authorizer } from '../auth/authorizer-types.ts';
import { parseRequestUrl } from '../http/request-url.ts';
import { traceOfRequest, tracedPlugin } from './admission.ts';
import { RequestTraces } from './ring.ts';
import { serveRequestTraces, traceFailure } from './routes.ts';

const configmaps = findResource('', 'v1', 'configmaps')!;
const labeler: AdmissionPlugin = {
  name: 'Labeler',
  admit: (_op, _rt, obj) => {
    obj.metadata = { ...obj.metadata, labels: { added: 'yes' } };
    return true;
  },
};
const refuser: AdmissionPlugin = {
  name: 'Refuser',
  validate: () => {
    throw new StatusError(403, 'Forbidden', 'no, thank you');
  },
};

function traced() {
  const traces = new RequestTraces(10);
  const t = traces.begin({ auditID: 'a1', verb: 'create', path: '/api/v1/namespaces/d/configmaps', resourceRequest: true })!;
  const user = { username: 'alice', groups: [] };
  t.trace.user = user.username;
  const attrs: AdmissionAttributes = {
    operation: 'CREATE',
    user,
    namespace: 'd',
    name: 'x',
    subresource: '',
    dryRun: false,
    requestID: 'a1',
  };
  return { traces, t, attrs };
}

test('each hook a traced request runs is a step: phase, plugin, outcome, changed', () => {
  const { traces, t, attrs } = traced();
  const chain = new AdmissionChain([labeler, refuser].map((p) => tracedPlugin(p, traceOfRequest(traces))));
  const obj = { metadata: { name: 'x' } } as ObjectToStore;
  assert.throws(() => chain.admit('CREATE', configmaps, obj, undefined, 'all', { ...attrs, name: 'x' }), /no, thank you/);
  assert.deepEqual(obj.metadata?.labels, { added: 'yes' });
  const steps = t.trace.steps.map(({ ms, ...s }) => (assert.equal(typeof ms, 'number'), s));
  assert.deepEqual(steps, [
    { stage: 'admission', phase: 'mutating', plugin: 'Labeler', outcome: 'allowed', changed: true },
    { stage: 'admission', phase: 'validating', plugin: 'Refuser', outcome: 'denied', detail: 'no, thank you' },
  ]);
});

test('a request that is not traced runs the plugins unrecorded, and the wrapper keeps the plugin flags', () => {
  const { traces, t, attrs } = traced();
  const wrapped = tracedPlugin({ ...labeler, contextual: true, transactional: true, appliesTo: () => false }, traceOfRequest(traces));
  assert.equal(wrapped.contextual, true);
  assert.equal(wrapped.transactional, true);
  assert.equal(wrapped.appliesTo!(configmaps), false);
  wrapped.admit!('CREATE', configmaps, { metadata: {} }, undefined, { ...attrs, requestID: 'not-traced' });
  assert.deepEqual(t.trace.steps, []);
});

const allowOnly = (who: string): Authorizer => ({
  name: 'test',
  authorize: (a) =>
    a.user.username === who && a.verb === 'list' && a.resource === 'requests' && a.apiGroup === 'history.ksim.io'
      ? { decision: 'allow', reason: '' }
      : { decision: 'noOpinion', reason: '' },
});

test('routes: the list, one trace, 404 when unknown, 403 without list on requests', () => {
  const { traces } = traced();
  const get = (path: string, user = 'viewer') =>
    JSON.parse(serveRequestTraces(traces, 'GET', parseRequestUrl(path), allowOnly('viewer'), { username: user, groups: [] }));
  const list = get('/apis/history.ksim.io/v1alpha1/requests?user=alice');
  assert.equal(list.kind, 'RequestTraceList');
  assert.equal(list.apiVersion, 'history.ksim.io/v1alpha1');
  assert.deepEqual(
    list.items.map((i: { auditID: string }) => i.auditID),
    ['a1'],
  );
  assert.equal(get('/apis/history.ksim.io/v1alpha1/requests?user=bob').items.length, 0);
  assert.equal(get('/apis/history.ksim.io/v1alpha1/requests/a1').kind, 'RequestTrace');
  assert.throws(
    () => get('/apis/history.ksim.io/v1alpha1/requests/gone'),
    (e: StatusError) => e.code === 404 && e.message === 'requests.history.ksim.io "gone" not found',
  );
  assert.throws(
    () => get('/apis/history.ksim.io/v1alpha1/requests/a1', 'mallory'),
    (e: StatusError) => e.code === 403 && /cannot list resource "requests" in API group "history.ksim.io"/.test(e.message),
  );
  assert.throws(
    () =>
      serveRequestTraces(traces, 'POST', parseRequestUrl('/apis/history.ksim.io/v1alpha1/requests'), allowOnly('v'), {
        username: 'v',
        groups: [],
      }),
    (e: StatusError) => e.code === 405,
  );
  assert.throws(
    () => get('/apis/history.ksim.io/v1/requests'),
    (e: StatusError) => e.code === 404,
  );
});

test('traceFailure: a 422 no plugin raised is validation; one after a denial adds nothing', () => {
  const { t } = traced();
  traceFailure(t, new StatusError(422, 'Invalid', 'ConfigMap "X" is invalid'));
  assert.deepEqual(t.trace.steps, [{ stage: 'validation', outcome: 'error', detail: 'ConfigMap "X" is invalid' }]);
  const other = traced().t;
  other.step({ stage: 'admission', plugin: 'P', outcome: 'denied' });
  traceFailure(other, new StatusError(422, 'Invalid', 'denied by policy'));
  assert.equal(other.trace.steps.length, 1);
});
