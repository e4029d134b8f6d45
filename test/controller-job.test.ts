// Jobs end to end on `ksim up --nodes 2 --speed 10`, driven by the real
// kubectl: a Job that completes, one that fails after its backoffLimit, an
// Indexed Job, ttlSecondsAfterFinished deleting a finished Job, and
// suspend/resume; with kube's conditions, events and status fields.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster, ok, eventually } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 2, speed: 10 });
});
after(() => c?.stop());

const events = async (name: string) =>
  ok(await c.k(['get', 'events', '--field-selector', `involvedObject.kind=Job,involvedObject.name=${name}`]));

const jobYaml = (name: string, spec: string, command: string) => `apiVersion: batch/v1
kind: Job
metadata: {name: ${name}}
spec:
${spec}
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox:1.36
        command: ["sh", "-c", ${JSON.stringify(command)}]
`;

describe('jobs', () => {
  test('kubectl create job runs a Pod to completion', async () => {
    ok(await c.k(['create', 'job', 'hello', '--image=busybox:1.36', '--', 'sh', '-c', 'echo hello from the job']));
    ok(await c.k(['wait', '--for=condition=complete', 'job/hello', '--timeout=60s']));
    assert.match(ok(await c.k(['get', 'job', 'hello'])), /^hello\s+Complete\s+1\/1\s+/m);
    assert.equal(await c.jsonpath(['get', 'job', 'hello'], '{.status.succeeded} {.status.ready} {.status.terminating}'), '1 0 0');
    assert.equal(
      await c.jsonpath(['get', 'job', 'hello'], '{range .status.conditions[*]}{.type}={.status}/{.reason};{end}'),
      'SuccessCriteriaMet=True/CompletionsReached;Complete=True/CompletionsReached;',
    );
    assert.notEqual(await c.jsonpath(['get', 'job', 'hello'], '{.status.completionTime}'), '');
    const podName = await c.jsonpath(['get', 'pods', '-l', 'job-name=hello'], '{.items[0].metadata.name}');
    assert.match(podName, /^hello-[a-z0-9]{5}$/);
    assert.equal(await c.jsonpath(['get', 'pod', podName], '{.status.phase} {.metadata.finalizers}'), 'Succeeded ');
    assert.match(ok(await c.k(['logs', `job/hello`])), /hello from the job/);
    const ev = await events('hello');
    assert.match(ev, new RegExp(`SuccessfulCreate\\s+job/hello\\s+Created pod: ${podName}`));
    assert.match(ev, /Completed\s+job\/hello\s+Job completed/);
  });

  test('a failing Job backs off and fails after its backoffLimit', async () => {
    ok(await c.k(['apply', '-f', '-'], jobYaml('fails', '  backoffLimit: 2', 'echo trying; exit 3')));
    ok(await c.k(['wait', '--for=condition=failed', 'job/fails', '--timeout=60s']));
    assert.equal(
      await c.jsonpath(
        ['get', 'job', 'fails'],
        '{.status.conditions[?(@.type=="Failed")].reason}: {.status.conditions[?(@.type=="Failed")].message}',
      ),
      'BackoffLimitExceeded: Job has reached the specified backoff limit',
    );
    assert.equal(await c.jsonpath(['get', 'job', 'fails'], '{.status.conditions[?(@.type=="FailureTarget")].status}'), 'True');
    assert.equal(await c.jsonpath(['get', 'job', 'fails'], '{.status.failed} {.status.active}'), '3 ');
    assert.match(ok(await c.k(['get', 'job', 'fails'])), /^fails\s+Failed\s+0\/1\s+/m);
    const ev = await events('fails');
    assert.match(ev, /Warning\s+BackoffLimitExceeded\s+job\/fails\s+Job has reached the specified backoff limit/);
    assert.equal((ev.match(/SuccessfulCreate/g) ?? []).length > 0, true);
    const starts = (
      await c.jsonpath(
        ['get', 'pods', '-l', 'job-name=fails', '--sort-by=.metadata.creationTimestamp'],
        '{.items[*].metadata.creationTimestamp}',
      )
    )
      .split(' ')
      .map(Date.parse);
    assert.equal(starts.length, 3);
  });

  test('an Indexed Job runs one Pod per index and reports completedIndexes', async () => {
    ok(
      await c.k(
        ['apply', '-f', '-'],
        jobYaml(
          'indexed',
          '  completions: 3\n  parallelism: 3\n  completionMode: Indexed',
          'echo index=$JOB_COMPLETION_INDEX host=$(hostname)',
        ),
      ),
    );
    ok(await c.k(['wait', '--for=condition=complete', 'job/indexed', '--timeout=60s']));
    assert.equal(await c.jsonpath(['get', 'job', 'indexed'], '{.status.completedIndexes} {.status.succeeded}'), '0-2 3');
    const rows = (
      await c.jsonpath(
        ['get', 'pods', '-l', 'job-name=indexed'],
        '{range .items[*]}{.metadata.annotations.batch\\.kubernetes\\.io/job-completion-index} {.metadata.labels.batch\\.kubernetes\\.io/job-completion-index} {.spec.hostname} {.metadata.name}{"\\n"}{end}',
      )
    )
      .trim()
      .split('\n')
      .sort();
    assert.equal(rows.length, 3);
    rows.forEach((row, i) => {
      const [ann, label, host, name] = row.split(' ');
      assert.equal(ann, String(i));
      assert.equal(label, String(i));
      assert.equal(host, `indexed-${i}`);
      assert.match(name, new RegExp(`^indexed-${i}-[a-z0-9]{5}$`));
      void name;
    });
    const one = rows[1].split(' ')[3];
    assert.match(ok(await c.k(['logs', one])), /index=1 host=indexed-1/);
  });

  test('ttlSecondsAfterFinished deletes the finished Job and its Pods', async () => {
    ok(await c.k(['apply', '-f', '-'], jobYaml('short-lived', '  ttlSecondsAfterFinished: 20', 'echo done')));
    ok(await c.k(['wait', '--for=condition=complete', 'job/short-lived', '--timeout=60s']));
    assert.equal(ok(await c.k(['get', 'job', 'short-lived', '-o', 'name'])).trim(), 'job.batch/short-lived');
    // 20 s at --speed 10: two seconds.
    await eventually('the Job gone', async () => /NotFound/.test((await c.k(['get', 'job', 'short-lived'])).stderr), 20_000);
    await eventually(
      'its Pods gone',
      async () => (await c.jsonpath(['get', 'pods', '-l', 'job-name=short-lived'], '{.items[*].metadata.name}')) === '',
    );
  });

  test('podFailurePolicy FailJob, activeDeadlineSeconds and restartPolicy OnFailure fail the Job with kube reasons', async () => {
    const pfp = jobYaml(
      'exit42',
      '  podFailurePolicy:\n    rules:\n    - action: FailJob\n      onExitCodes: {containerName: main, operator: In, values: [42]}',
      'exit 42',
    );
    const deadline = jobYaml('deadline', '  activeDeadlineSeconds: 20', 'sleep 3600');
    const onFailure = jobYaml('restarts', '  backoffLimit: 2', 'exit 1').replace('restartPolicy: Never', 'restartPolicy: OnFailure');
    ok(await c.k(['apply', '-f', '-'], [pfp, deadline, onFailure].join('---\n')));
    ok(await c.k(['wait', '--for=condition=failed', 'job/exit42', 'job/deadline', 'job/restarts', '--timeout=60s']));
    const failed = '{.status.conditions[?(@.type=="Failed")].reason}: {.status.conditions[?(@.type=="Failed")].message}';
    const pod = await c.jsonpath(['get', 'pods', '-l', 'job-name=exit42'], '{.items[0].metadata.name}');
    assert.equal(
      await c.jsonpath(['get', 'job', 'exit42'], failed),
      `PodFailurePolicy: Container main for pod default/${pod} failed with exit code 42 matching FailJob rule at index 0`,
    );
    assert.equal(await c.jsonpath(['get', 'job', 'deadline'], failed), 'DeadlineExceeded: Job was active longer than specified deadline');
    assert.equal(await c.jsonpath(['get', 'job', 'restarts'], failed), 'BackoffLimitExceeded: Job has reached the specified backoff limit');
    assert.match(await events('deadline'), /Warning\s+DeadlineExceeded\s+job\/deadline\s+Job was active longer than specified deadline/);
    // The deadline's running Pod was deleted, and counted as failed once gone.
    await eventually(
      'the deadline Pod gone',
      async () => (await c.jsonpath(['get', 'pods', '-l', 'job-name=deadline'], '{.items[*].metadata.name}')) === '',
    );
    assert.equal(await c.jsonpath(['get', 'job', 'deadline'], '{.status.failed}'), '1');
    assert.match(ok(await c.k(['describe', 'job', 'exit42'])), /Pods Statuses:\s+0 Active \(0 Ready\) \/ 0 Succeeded \/ 1 Failed/);
  });

  test('a suspended Job creates no Pods until resumed; resuming resets startTime', async () => {
    ok(await c.k(['apply', '-f', '-'], jobYaml('later', '  suspend: true\n  completions: 2\n  parallelism: 2', 'echo resumed')));
    await eventually(
      'Suspended=True',
      async () => (await c.jsonpath(['get', 'job', 'later'], '{.status.conditions[?(@.type=="Suspended")].status}')) === 'True',
    );
    assert.equal(
      await c.jsonpath(['get', 'job', 'later'], '{.status.conditions[?(@.type=="Suspended")].reason} {.status.startTime}'),
      'JobSuspended ',
    );
    assert.equal(await c.jsonpath(['get', 'pods', '-l', 'job-name=later'], '{.items[*].metadata.name}'), '');
    assert.match(ok(await c.k(['get', 'job', 'later'])), /^later\s+Suspended\s+0\/2\s+/m);
    ok(await c.k(['patch', 'job', 'later', '--type=merge', '-p', '{"spec":{"suspend":false}}']));
    ok(await c.k(['wait', '--for=condition=complete', 'job/later', '--timeout=60s']));
    assert.equal(
      await c.jsonpath(
        ['get', 'job', 'later'],
        '{.status.conditions[?(@.type=="Suspended")].status}/{.status.conditions[?(@.type=="Suspended")].reason}',
      ),
      'False/JobResumed',
    );
    assert.notEqual(await c.jsonpath(['get', 'job', 'later'], '{.status.startTime}'), '');
    const ev = await events('later');
    assert.match(ev, /Normal\s+Suspended\s+job\/later\s+Job suspended/);
    assert.match(ev, /Normal\s+Resumed\s+job\/later\s+Job resumed/);
  });
});
