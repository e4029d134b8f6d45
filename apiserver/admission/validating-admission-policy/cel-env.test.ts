import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileExpression, nullAsDyn, type Declarations } from './cel-env.ts';
import { toCel } from './values.ts';
import { celAuthorizer } from './authorizer-library.ts';
import type { Authorizer } from '../../auth/authorizer-types.ts';

const none: Declarations = { params: false, authorizer: false, variables: [] };

function run(expr: string, object: unknown = {}, d: Declarations = none, extra: Record<string, unknown> = {}): unknown {
  const c = compileExpression(expr, 'any', d);
  if ('error' in c) throw new Error(c.error.detail);
  return c.program.run({ object: toCel(object), oldObject: null, request: null, namespaceObject: null, variables: {}, ...extra });
}

test("kube's CEL library functions", () => {
  const cases: Array<[string, unknown, unknown]> = [
    ['object.spec.replicas <= 5', { spec: { replicas: 6 } }, false],
    ['object.items.isSorted()', { items: [1, 2, 2, 3] }, true],
    ["['b', 'a'].isSorted()", {}, false],
    ['object.items.sum()', { items: [1, 2, 3] }, 6n],
    ['object.items.min()', { items: [3, 1, 2] }, 1n],
    ['object.items.max()', { items: [3, 1, 2] }, 3n],
    ['[1, 2, 1].lastIndexOf(1)', {}, 2n],
    ["'ab12cd34'.find('[0-9]+')", {}, '12'],
    ["'ab12cd34'.findAll('[0-9]+')", {}, ['12', '34']],
    ["'Hello'.lowerAscii() + 'x'.upperAscii()", {}, 'helloX'],
    ["'a,b,c'.split(',').join('-')", {}, 'a-b-c'],
    ["'  x '.trim()", {}, 'x'],
    ["'hello'.charAt(1)", {}, 'e'],
    ["'hello'.replace('l', 'L')", {}, 'heLLo'],
    ["'abc'.reverse()", {}, 'cba'],
    ['sets.contains([1, 2, 3], [3, 1])', {}, true],
    ['sets.intersects([1], [2])', {}, false],
    ["base64.decode(base64.encode(b'hi')) == b'hi'", {}, true],
    ["quantity(object.mem).isGreaterThan(quantity('512Mi'))", { mem: '1Gi' }, true],
    ["quantity('1') == quantity('1000m')", {}, true],
    ["quantity('1.5').add(quantity('500m')).asInteger()", {}, 2n],
    ["isQuantity('1Gi') && !isQuantity('1 Gi')", {}, true],
    ['has(object.spec) && !has(object.spec.paused)', { spec: {} }, true],
    ["object.metadata.labels.all(k, k.startsWith('app'))", { metadata: { labels: { app: 'x', 'app.kubernetes.io/name': 'y' } } }, true],
    ['object.?spec.?replicas.orValue(1)', {}, 1n],
    ['object.ratio > 1.0', { ratio: 1.5 }, true],
  ];
  for (const [expr, object, want] of cases) assert.deepEqual(run(expr, object), want, expr);
});

test("compile errors are worded as cel-go's, and the result type is checked", () => {
  const err = (expr: string, want: 'bool' | 'string' | 'string-or-null' = 'bool', d: Declarations = none) => {
    const c = compileExpression(expr, want, d);
    return 'error' in c ? c.error.detail : '';
  };
  assert.equal(err('object.spec.replicas'), 'must evaluate to bool but got dyn');
  assert.equal(err('1', 'string'), 'must evaluate to string but got int');
  assert.equal(err("['a']", 'string-or-null'), 'must evaluate to one of [string null_type] but got list(string)');
  assert.equal(
    err('params.max > 1'),
    "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.max > 1\n | ^",
  );
  assert.equal(err('params.max > 1', 'bool', { ...none, params: true }), '');
  assert.match(err('object.spec.replicas <'), /^compilation failed: ERROR: <input>:1:23: /);
  assert.equal(err("object.x > 1 ? 'big' : null", 'string-or-null'), '');
  // request is typed, as kube's BuildRequestType.
  assert.equal(err("request.operation == 'CREATE' && request.userInfo.groups.exists(g, g == 'dev')"), '');
  assert.equal(
    err('request.nosuch == 1'),
    "compilation failed: ERROR: <input>:1:8: undefined field 'nosuch'\n | request.nosuch == 1\n | .......^",
  );
  assert.equal(nullAsDyn(`a == null || b == 'null' || c == "is null"`), `a == dyn(null) || b == 'null' || c == "is null"`);
});

test('the authorizer asks the apiserver with kube attributes', () => {
  const asked: unknown[] = [];
  const authz: Authorizer = {
    name: 'fake',
    authorize: (a) => {
      asked.push({
        verb: a.verb,
        group: a.apiGroup,
        resource: a.resource,
        ns: a.namespace,
        name: a.name,
        user: a.user.username,
        path: a.path,
      });
      return a.verb === 'get' ? { decision: 'allow', reason: 'ok' } : { decision: 'noOpinion', reason: 'no rule' };
    },
  };
  const d = { ...none, authorizer: true };
  const user = { username: 'alice', groups: [] };
  const a = celAuthorizer(user, authz, { apiGroup: 'apps', resource: 'deployments', subresource: '', namespace: 'lab', name: 'web' });
  assert.equal(
    run("authorizer.group('').resource('pods').namespace('lab').name('p').check('get').allowed()", {}, d, { authorizer: a }),
    true,
  );
  assert.equal(run("authorizer.requestResource.check('delete').reason()", {}, d, { authorizer: a }), 'no rule');
  assert.equal(run("authorizer.serviceAccount('lab', 'bot').path('/healthz').check('GET').allowed()", {}, d, { authorizer: a }), true);
  assert.deepEqual(asked, [
    { verb: 'get', group: '', resource: 'pods', ns: 'lab', name: 'p', user: 'alice', path: '' },
    { verb: 'delete', group: 'apps', resource: 'deployments', ns: 'lab', name: 'web', user: 'alice', path: '' },
    { verb: 'get', group: '', resource: '', ns: '', name: '', user: 'system:serviceaccount:lab:bot', path: '/healthz' },
  ]);
});
