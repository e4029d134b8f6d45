// Tables of `ksim chaos` command lines: what each becomes, and the usage
// error (naming the flag or argument) each bad one gets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ChaosUsageError, parseChaosArgs } from './parse.ts';

const env = {};
const req = (line: string) => parseChaosArgs(line.split(' ').filter(Boolean), env).request;

test('command lines become ChaosRequests', () => {
  const cases: [string, unknown][] = [
    ['kill scheduler', { action: 'kill', target: 'scheduler' }],
    ['stop controller-manager --duration 30s', { action: 'stop', target: 'controller-manager', durationMs: 30_000 }],
    ['start scheduler-2', { action: 'start', target: 'scheduler-2' }],
    ['pause leader/controller-manager --duration=1m30s', { action: 'pause', target: 'leader/controller-manager', durationMs: 90_000 }],
    ['restart node/node-1', { action: 'restart', target: 'node/node-1' }],
    ['resume kubelet-sim', { action: 'resume', target: 'kubelet-sim' }],
    ['partition node/node-2 --duration 10s --seed 7', { action: 'partition', target: 'node/node-2', durationMs: 10_000, seed: 7 }],
    ['heal node/node-2', { action: 'heal', target: 'node/node-2' }],
    ['fail node/n.example', { action: 'fail', target: 'node/n.example' }],
    ['pressure node/node-1 disk', { action: 'pressure', target: 'node/node-1', pressure: 'disk' }],
    ['apiserver --latency 200ms,50ms', { action: 'apiserver', apiserver: { latencyMs: 200, jitterMs: 50 } }],
    ['apiserver --latency 1.5s', { action: 'apiserver', apiserver: { latencyMs: 1500 } }],
    [
      'apiserver --error-rate 0.1 --error-code 429 --verb create --resource pods --user-agent kubectl --seed 3',
      {
        action: 'apiserver',
        seed: 3,
        apiserver: { errorRate: 0.1, errorCode: 429, match: { verb: 'create', resource: 'pods', userAgent: 'kubectl' }, seed: 3 },
      },
    ],
    ['apiserver --drop-watches', { action: 'apiserver', apiserver: { dropWatches: true } }],
    [
      'apiserver --watch-delay 2s --user system:kube-scheduler',
      { action: 'apiserver', apiserver: { watchDelayMs: 2000, match: { user: 'system:kube-scheduler' } } },
    ],
    ['apiserver --compact', { action: 'apiserver', apiserver: { compact: true } }],
    ['apiserver --clear', { action: 'apiserver', apiserver: { clear: true } }],
    [
      'watch scheduler --delay 2s --duration 20s',
      { action: 'watch', target: 'scheduler', durationMs: 20_000, watch: { mode: 'delay', delayMs: 2000 } },
    ],
    ['watch controller-manager --hold', { action: 'watch', target: 'controller-manager', watch: { mode: 'hold' } }],
    ['watch controller-manager --drop', { action: 'watch', target: 'controller-manager', watch: { mode: 'drop' } }],
    ['kill pod/default/web-1', { action: 'kill-pod', target: 'pod/default/web-1' }],
    ['kill pod/default/web-1 --container nginx', { action: 'kill-pod', target: 'pod/default/web-1', pods: { container: 'nginx' } }],
    ['delete pod/kube-system/coredns-x', { action: 'delete-pod', target: 'pod/kube-system/coredns-x' }],
    ['kill pods -l app=web', { action: 'kill-pod', pods: { namespace: 'default', labelSelector: 'app=web', mode: 'one' } }],
    [
      'delete pods -n prod -l app=web,tier!=db --mode fixed-percent --value 50 --seed 42',
      { action: 'delete-pod', seed: 42, pods: { namespace: 'prod', labelSelector: 'app=web,tier!=db', mode: 'fixed-percent', value: 50 } },
    ],
    ['kill pods --mode all', { action: 'kill-pod', pods: { namespace: 'default', mode: 'all' } }],
    ['delete pods -A -l app=web', { action: 'delete-pod', pods: { allNamespaces: true, labelSelector: 'app=web', mode: 'one' } }],
    ['kill pods --all-namespaces --mode all', { action: 'kill-pod', pods: { allNamespaces: true, mode: 'all' } }],
    ['kill pods --namespace=x --mode=fixed --value=3', { action: 'kill-pod', pods: { namespace: 'x', mode: 'fixed', value: 3 } }],
    [
      'delete pods -nprod --mode random-max-percent --value 100',
      { action: 'delete-pod', pods: { namespace: 'prod', mode: 'random-max-percent', value: 100 } },
    ],
    ['skew controller-manager +30s', { action: 'skew', target: 'controller-manager', offsetMs: 30_000 }],
    ['skew scheduler -5s --duration 1m', { action: 'skew', target: 'scheduler', offsetMs: -5000, durationMs: 60_000 }],
    ['skew apiserver 1m', { action: 'skew', target: 'apiserver', offsetMs: 60_000 }],
    ['recover', { action: 'recover' }],
    ['recover f-3', { action: 'recover', faultId: 'f-3' }],
    ['--data-dir /tmp/x kill scheduler', { action: 'kill', target: 'scheduler' }],
  ];
  for (const [line, want] of cases) assert.deepEqual(req(line), want, line);
});

test('the data dir: --data-dir, else $KSIM_DATA_DIR, else .ksim', () => {
  assert.equal(parseChaosArgs(['list', '--data-dir', '/tmp/d1'], env).dataDir, '/tmp/d1');
  assert.equal(parseChaosArgs(['--data-dir=/tmp/d2', 'list'], env).dataDir, '/tmp/d2');
  assert.equal(parseChaosArgs(['list'], { KSIM_DATA_DIR: '/tmp/d3' }).dataDir, '/tmp/d3');
  assert.equal(parseChaosArgs(['list'], {}).dataDir, path.resolve('.ksim'));
  assert.deepEqual(parseChaosArgs(['list'], {}).list, true);
  assert.deepEqual(parseChaosArgs(['--help'], {}).help, true);
  assert.deepEqual(parseChaosArgs(['kill', '--help'], {}).help, true);
});

test('run hands every argument after it to the experiment runner, untouched', () => {
  const p = parseChaosArgs(['run', 'exp.yaml', '--data-dir', '/tmp/r', '--report', 'out.json', '--whatever'], {});
  assert.deepEqual(p.run, { file: 'exp.yaml', argv: ['exp.yaml', '--data-dir', '/tmp/r', '--report', 'out.json', '--whatever'] });
  assert.equal(p.dataDir, '/tmp/r');
  assert.equal(parseChaosArgs(['--data-dir', '/tmp/s', 'run', 'e.yaml'], {}).dataDir, '/tmp/s');
  assert.deepEqual(parseChaosArgs(['run', '--help'], {}).run?.argv, ['--help']);
});

test('bad command lines are usage errors that name the flag or argument', () => {
  const cases: [string, RegExp][] = [
    ['', /needs an action/],
    ['explode scheduler', /unknown chaos action "explode"/],
    ['kill', /needs a component/],
    ['kill etcd', /unknown component "etcd"/],
    ['kill scheduler extra', /unexpected argument "extra"/],
    ['kill scheduler --bogus', /unknown flag --bogus/],
    ['kill scheduler -x', /unknown flag -x/],
    ['kill scheduler --latency 2s', /flag --latency is not valid for ksim chaos kill/],
    ['kill scheduler --duration', /flag --duration needs a value/],
    ['kill scheduler --duration soon', /flag --duration: "soon" is not a duration/],
    ['kill scheduler --duration 0s', /flag --duration: "0s" must be above 0/],
    ['kill scheduler --duration 1s --duration 2s', /flag --duration given twice/],
    ['kill scheduler --seed 1.5', /flag --seed: "1.5" is not a whole number/],
    ['start scheduler --duration 5s', /flag --duration is not valid for ksim chaos start/],
    ['kill node/Bad_Name', /"node\/Bad_Name": node name/],
    ['partition scheduler', /"scheduler" is not node\/NAME/],
    ['partition', /needs a node/],
    ['pressure node/n1', /needs memory, disk or pid/],
    ['pressure node/n1 cpu', /"cpu" is not memory, disk or pid/],
    ['apiserver', /needs a fault/],
    ['apiserver --latency fast', /flag --latency: "fast" is not a duration/],
    ['apiserver --latency 1s,2s,3s', /flag --latency: "1s,2s,3s" is LATENCY or LATENCY,JITTER/],
    ['apiserver --latency -1s', /flag --latency: "-1s" must not be negative/],
    ['apiserver --error-rate 1.5', /flag --error-rate: 1.5 is not in \[0,1\]/],
    ['apiserver --error-rate -0.1', /flag --error-rate: -0.1 is not in \[0,1\]/],
    ['apiserver --error-rate x', /flag --error-rate: "x" is not a number/],
    ['apiserver --error-rate 0.5 --error-code 503', /flag --error-code: 503 is not one of 500, 429, 409, 504/],
    ['apiserver --error-code 500', /flag --error-code needs --error-rate/],
    ['apiserver --latency 1s --verb fetch', /flag --verb: "fetch" is not one of/],
    ['apiserver --clear --latency 1s', /flag --clear .* takes no --latency/],
    ['apiserver --drop-watches=maybe', /flag --drop-watches: "maybe" is not true or false/],
    ['apiserver --hold', /flag --hold is not valid for ksim chaos apiserver/],
    ['watch scheduler', /exactly one of --delay/],
    ['watch scheduler --hold --drop', /exactly one of --delay/],
    ['watch scheduler --delay 0s', /flag --delay: "0s" must be above 0/],
    ['kill pod/default', /"pod\/default" is not pod\/NAMESPACE\/NAME/],
    ['kill pod/Default/web', /namespace "Default" must be a lowercase RFC 1123 label/],
    ['kill pod/default/web -l app=x', /flag -l is not valid for ksim chaos kill pod\/NS\/NAME/],
    ['delete pod/default/web --container c', /flag --container is not valid for ksim chaos delete pod\/NS\/NAME/],
    ['delete scheduler', /"scheduler" is not pod\/NS\/NAME or pods/],
    ['delete', /needs pod\/NS\/NAME or pods/],
    ['kill pods --mode some', /flag --mode: "some" is not one of one, all, fixed, fixed-percent, random-max-percent/],
    ['kill pods --mode fixed', /flag --mode fixed needs --value/],
    ['kill pods --mode fixed-percent', /flag --mode fixed-percent needs --value/],
    ['kill pods --mode random-max-percent', /flag --mode random-max-percent needs --value/],
    ['kill pods --mode fixed --value 0', /flag --value: 0 must be above 0/],
    ['kill pods --mode fixed --value 2.5', /flag --value: "2.5" is not a whole number/],
    ['kill pods --mode fixed-percent --value 150', /flag --value: 150 is not a percentage in \(0,100\]/],
    ['kill pods --mode all --value 3', /flag --value is only for --mode fixed/],
    ['kill pods --value 3', /flag --value is only for --mode fixed/],
    ['kill pods -l app=(', /flag -l: /],
    ['kill pods -A -n prod', /flag -A: cannot be used with -n/],
    ['kill pod/default/web-1 -A', /flag -A is not valid for ksim chaos kill pod\/NS\/NAME/],
    ['kill pods -n', /flag -n needs a value/],
    ['skew scheduler', /needs an offset/],
    ['skew scheduler soon', /offset: "soon" is not a duration/],
    ['recover --duration 5s', /flag --duration is not valid for ksim chaos recover/],
    ['recover a b', /unexpected argument "b"/],
    ['list --seed 1', /flag --seed is not valid for ksim chaos list/],
    ['list extra', /unexpected argument "extra"/],
    ['run', /needs an experiment file/],
    ['list --data-dir=', /flag --data-dir must not be empty/],
  ];
  for (const [line, want] of cases) {
    assert.throws(
      () => parseChaosArgs(line.split(' ').filter(Boolean), env),
      (err: unknown) => err instanceof ChaosUsageError && want.test(err.message),
      `${line} -> ${want}`,
    );
  }
});
