// The simulated shell: what learners put in command/args behaves as in a
// busybox container, with sleeps on a fake clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import { FakeClock } from '../../shared/clock/clock.ts';
import { SimFs, Volume } from './filesystem.ts';
import { Killed, parseBytes, runProcess, type ShellContext } from './shell.ts';

function ctx(clock = new FakeClock(), extra: Partial<ShellContext> = {}): ShellContext & { output: () => string } {
  let out = '';
  const fs = new SimFs({ '/etc/hostname': 'web-0\n' });
  return {
    fs,
    env: new Map([
      ['GREETING', 'hello'],
      ['HOSTNAME', 'web-0'],
    ]),
    out: (t) => (out += t),
    sleep: (s) => clock.sleep(s * 1000),
    now: () => clock.now(),
    output: () => out,
    ...extra,
  };
}

async function sh(script: string, c = ctx()): Promise<{ code: number; out: string }> {
  const res = await runProcess(['sh', '-c', script], c);
  return { code: res.exitCode, out: c.output() };
}

test('exit codes, && || ; and echo', async () => {
  assert.deepEqual(await sh('echo hi; exit 3'), { code: 3, out: 'hi\n' });
  assert.deepEqual(await sh('false && echo no || echo yes'), { code: 0, out: 'yes\n' });
  assert.deepEqual(await sh('true && echo "a  b" \'$GREETING\' $GREETING'), { code: 0, out: 'a  b $GREETING hello\n' });
  assert.deepEqual(await sh('false'), { code: 1, out: '' });
  assert.deepEqual(await sh('nosuch'), { code: 127, out: 'sh: nosuch: not found\n' });
  assert.deepEqual(await sh('echo $(echo inner) ${MISSING:-dflt} $?'), { code: 0, out: 'inner dflt 0\n' });
});

test('files: echo > file, cat, test -f, touch, rm, ls, read-only mounts', async () => {
  const c = ctx();
  const cfg = new Volume('cfg', true);
  cfg.replace({ 'app.conf': 'mode=dev\n' });
  c.fs.mount('/etc/config', cfg);
  const r = await sh(
    'echo ok > /tmp/healthy && cat /tmp/healthy && test -f /tmp/healthy && rm /tmp/healthy && test -f /tmp/healthy || echo gone; ls /etc/config; cat /etc/config/app.conf; touch /etc/config/x || echo ro',
    c,
  );
  assert.equal(r.out, 'ok\ngone\napp.conf\nmode=dev\ntouch: /etc/config/x: Read-only file system\nro\n');
  assert.equal((await sh('cat /nope')).out, "cat: can't open '/nope': No such file or directory\n");
});

test('env, printenv, hostname', async () => {
  assert.equal((await sh('printenv GREETING; hostname')).out, 'hello\nweb-0\n');
  assert.match((await sh('env')).out, /^GREETING=hello\nHOSTNAME=web-0\n$/);
});

test('loops and sleeps run on the injected clock', async () => {
  const clock = new FakeClock();
  const c = ctx(clock);
  const settle = () => new Promise((r) => setImmediate(r));
  const done = runProcess(['sh', '-c', 'i=0; while true; do echo tick $i; i=$(echo 1); sleep 10; done'], c);
  await settle();
  await clock.step(25_000);
  assert.equal(c.output(), 'tick 0\ntick 1\ntick 1\n');
  const c2 = ctx(clock);
  const p2 = runProcess(['sh', '-c', 'for x in a b; do echo $x; done; if test -f /x; then echo y; else echo n; fi; sleep 5; exit 4'], c2);
  await settle();
  await clock.step(5_000);
  assert.deepEqual(await p2, { exitCode: 4 });
  assert.equal(c2.output(), 'a\nb\nn\n');
  void done;
});

test('a killed process reports the signal exit code', async () => {
  const clock = new FakeClock();
  let kill: (e: Killed) => void = () => {};
  const c = ctx(clock, {
    sleep: (s) =>
      new Promise((res, rej) => {
        kill = rej;
        if (Number.isFinite(s)) clock.setTimeout(res, s * 1000);
      }),
  });
  const p = runProcess(['sleep', '3600'], c);
  kill(new Killed(137));
  assert.deepEqual(await p, { exitCode: 137 });
});

test('a busy loop that never sleeps is killed all the same', { timeout: 5000 }, async () => {
  const ac = new AbortController();
  const p = runProcess(['sh', '-c', 'while true; do :; done'], ctx(new FakeClock(), { signal: ac.signal }));
  await new Promise((r) => setTimeout(r, 20));
  ac.abort(new Killed(137));
  assert.deepEqual(await p, { exitCode: 137 });
});

test('memory beyond the limit is an OOM kill', async () => {
  const c = ctx(new FakeClock(), { memoryLimit: parseBytes('100Mi') });
  assert.deepEqual(await runProcess(['stress', '--vm', '1', '--vm-bytes', '250M', '--vm-hang', '1'], c), {
    exitCode: 137,
    oomKilled: true,
  });
  assert.equal(parseBytes('1Gi'), 1024 ** 3);
});

test('nslookup, wget and curl go through Services to ready endpoints', async () => {
  const { ClusterNet } = await import('./cluster-net.ts');
  const web: Pod = {
    metadata: { name: 'web-1', namespace: 'default' },
    spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
    status: { phase: 'Running', podIP: '10.244.1.5' },
  };
  const svc = (name: string, port: number) => ({
    metadata: { name, namespace: 'default' },
    spec: { clusterIP: name === 'web' ? '10.96.0.20' : '10.96.0.21', ports: [{ port, targetPort: 80 }] },
  });
  const services: Record<string, Service> = { web: svc('web', 80), empty: svc('empty', 80) };
  const eps: Record<string, Endpoints> = {
    web: {
      subsets: [
        { addresses: [{ ip: '10.244.1.5', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-1' } }], ports: [{ port: 80 }] },
      ],
    },
  };
  const net = new ClusterNet(
    {
      service: (_ns, n) => services[n],
      endpoints: (_ns, n) => eps[n],
      serviceByIP: (ip) => Object.values(services).find((s) => s.spec?.clusterIP === ip),
      podByIP: (ip) => (ip === '10.244.1.5' ? web : undefined),
      pod: (_ns, n) => (n === 'web-1' ? web : undefined),
    },
    'default',
  );
  const c = () => ctx(new FakeClock(), { net });
  const clock = new FakeClock();
  const run = async (script: string) => {
    const cc = ctx(clock, { net });
    const p = runProcess(['sh', '-c', script], cc);
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setImmediate(r));
      await clock.step(100);
    }
    return { code: (await p).exitCode, out: cc.output() };
  };
  void c;
  const ok = await run('wget -qO- http://web');
  assert.equal(ok.code, 0);
  assert.match(ok.out, /Welcome to nginx!/);
  assert.deepEqual(await run('wget -qO- http://empty'), {
    code: 1,
    out: "wget: can't connect to remote host (10.96.0.21): Connection refused\n",
  });
  assert.deepEqual(await run('wget -qO- http://nosuch'), { code: 1, out: "wget: bad address 'nosuch'\n" });
  assert.deepEqual(await run('wget -qO- http://web:8080'), {
    code: 1,
    out: "wget: can't connect to remote host (10.96.0.20): Connection refused\n",
  });
  assert.deepEqual(await run('curl -s nosuch'), { code: 6, out: 'curl: (6) Could not resolve host: nosuch\n' });
  assert.match((await run('curl -s web.default.svc.cluster.local')).out, /Welcome to nginx/);
  assert.equal(
    (await run('nslookup web')).out,
    'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tweb.default.svc.cluster.local\nAddress: 10.96.0.20\n\n',
  );
  assert.equal((await run('nslookup nosuch')).code, 1);
});

function ctx2(extra: Partial<ShellContext> = {}) {
  let out = '';
  let err = '';
  const c = ctx(new FakeClock(), { out: (t) => (out += t), err: (t) => (err += t), ...extra });
  return { c, out: () => out, err: () => err };
}

test('stderr is its own stream: >&2, 1>&2, 2>&1, 2>/dev/null, in the order sh applies them', async () => {
  const run = async (script: string) => {
    const s = ctx2();
    const code = (await runProcess(['sh', '-c', script], s.c)).exitCode;
    return { code, out: s.out(), err: s.err() };
  };
  assert.deepEqual(await run('echo out; echo err >&2'), { code: 0, out: 'out\n', err: 'err\n' });
  assert.deepEqual(await run('echo a 1>&2; nosuch'), { code: 127, out: '', err: 'a\nsh: nosuch: not found\n' });
  assert.deepEqual(await run('nosuch 2>&1'), { code: 127, out: 'sh: nosuch: not found\n', err: '' });
  assert.deepEqual(await run('nosuch 2>/dev/null; cat /nope 2> /dev/null || echo failed'), { code: 0, out: 'failed\n', err: '' });
  // `>f 2>&1` sends both to f; `2>&1 >f` sends stderr to the old stdout.
  assert.deepEqual(await run('nosuch >/tmp/f 2>&1; cat /tmp/f'), { code: 0, out: 'sh: nosuch: not found\n', err: '' });
  assert.deepEqual(await run('nosuch 2>&1 >/tmp/g; cat /tmp/g'), { code: 0, out: 'sh: nosuch: not found\n', err: '' });
  assert.deepEqual(await run('echo a2>/tmp/h; cat /tmp/h'), { code: 0, out: 'a2\n', err: '' });
  assert.deepEqual(await run('echo x >&3'), { code: 1, out: '', err: 'sh: 3: bad file descriptor\n' });
  assert.deepEqual(await run('echo "a >&2"'), { code: 0, out: 'a >&2\n', err: '' });
  assert.deepEqual(await run('echo unterminated "'), { code: 2, out: '', err: 'sh: syntax error: unterminated quoted string\n' });
});

test('an empty argv (a container with neither command nor args, attached) exits 0 instead of throwing', async () => {
  assert.deepEqual(await runProcess([], ctx()), { exitCode: 0 });
});

test('sh with a live stdin runs each line as it arrives, keeps variables, and ends at EOF or exit', async () => {
  const { StdinPipe } = await import('./stdin-pipe.ts');
  const pipe = new StdinPipe();
  const s = ctx2({ stdin: pipe });
  const done = runProcess(['sh'], s.c);
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };
  pipe.write('X=1; echo first $X\necho sec');
  await settle();
  assert.equal(s.out(), 'first 1\n');
  pipe.write('ond $X >&2\nfor i in a b\n');
  await settle();
  assert.equal(s.err(), 'second 1\n');
  pipe.write('do echo $i; done\n');
  await settle();
  assert.equal(s.out(), 'first 1\na\nb\n');
  pipe.write('exit 7\necho never\n');
  assert.deepEqual(await done, { exitCode: 7 });
  const pipe2 = new StdinPipe();
  const s2 = ctx2({ stdin: pipe2 });
  const done2 = runProcess(['sh'], s2.c);
  pipe2.write('false\n');
  pipe2.end();
  assert.deepEqual(await done2, { exitCode: 1 });
});

test('cat copies a live stdin as it comes; a kill ends a read of stdin', async () => {
  const { StdinPipe } = await import('./stdin-pipe.ts');
  const pipe = new StdinPipe();
  const ac = new AbortController();
  const s = ctx2({ stdin: pipe, signal: ac.signal });
  const done = runProcess(['cat'], s.c);
  pipe.write('one\n');
  await new Promise((r) => setImmediate(r));
  assert.equal(s.out(), 'one\n');
  ac.abort(new Killed(137));
  assert.deepEqual(await done, { exitCode: 137 });
});

test('a terminal echoes keystrokes, edits the line, prompts, and turns \\n into \\r\\n', async () => {
  const { StdinPipe } = await import('./stdin-pipe.ts');
  const { Terminal } = await import('./terminal.ts');
  const pipe = new StdinPipe();
  let screen = '';
  const term = new Terminal(pipe, (t) => (screen += t));
  const c = ctx(new FakeClock(), { out: term.out, err: term.out, stdin: term });
  const done = runProcess(['sh'], c);
  pipe.write('echo hx\x7fi\x1b[A\r');
  await new Promise((r) => setTimeout(r, 10));
  pipe.write('ech\x03exit 3\r');
  assert.deepEqual(await done, { exitCode: 3 });
  // The second chunk is cooked (echoed) in one go, before the shell prompts again after the ^C line.
  assert.equal(screen, '/ # echo hx\b \bi\r\nhi\r\n/ # ech^C\r\nexit 3\r\n/ # ');
});

// ---------------------------------------------------------------- the language (busybox ash)

import { runSh } from './commands/test-helpers.ts';
import { commandExists, executableNotFound } from './shell.ts';

test('ash language: arithmetic, loops, case, functions, parameters, here-documents, substitutions', async () => {
  const rows: [string, string, number?][] = [
    ['i=0; while [ $i -lt 3 ]; do echo $((i+1)); i=$((i+1)); done', '1\n2\n3\n'],
    ['i=3; until [ $i -eq 0 ]; do printf "%s " $i; i=$((i-1)); done; echo', '3 2 1 \n'],
    ['echo $((2**10)) $((7/2)) $((-7%3)) $(( (1+2)*3 )) $((1<2 && 3>2)) $((0x10 + 010)) $((5>3?10:20))', '1024 3 -1 9 1 24 10\n'],
    ['x=4; : $((x+=1)); echo $x $((x++)) $x $((--x))', '5 5 6 5\n'],
    ['for x in a b c; do case $x in a) echo A;; b|c) echo BC;; *) echo other;; esac; done', 'A\nBC\nBC\n'],
    ['case hello.txt in *.sh) echo sh;; *.txt) echo txt;; esac', 'txt\n'],
    ['f() { echo "$# [$1] [$@]"; return 3; }; f a "b c"; echo $?', '2 [a] [a b c]\n3\n'],
    ['f() { for a in "$@"; do echo "<$a>"; done; }; f 1 "2 3" ""', '<1>\n<2 3>\n<>\n'],
    ['function g { local v=in; echo $v; }; v=out; g; echo $v', 'in\nout\n'],
    ['cat <<EOF\nhello $HOME $((1+1))\nEOF', 'hello /root 2\n'],
    ["cat <<'EOF'\nno $HOME\nEOF", 'no $HOME\n'],
    ['cat <<-EOF\n\tindented\n\tEOF', 'indented\n'],
    ['echo `echo back` $(echo a $(echo nested))', 'back a nested\n'],
    ['x=${unset:-dflt}; echo $x ${#x} ${x%t} ${x#d} ${x:1:2}', 'dflt 4 dfl flt fl\n'],
    ['p=/a/b/c.tar.gz; echo ${p##*/} ${p%%.*} ${p%/*} ${p/b/B}', 'c.tar.gz /a/b/c /a/b /a/B/c.tar.gz\n'],
    ['echo ${NOPE:=set}; echo $NOPE; echo ${NOPE:+alt}', 'set\nset\nalt\n'],
    ['set -- x y z; echo $# $2; shift; echo $@', '3 y\ny z\n'],
    ['echo "$$" $0', '1 sh\n'],
    ['false; echo $?; true; echo $?', '1\n0\n'],
    ['! false && echo negated', 'negated\n'],
    ['true && false || echo fallback', 'fallback\n'],
    ['{ echo a; echo b; } | wc -l', '2\n'],
    ['(cd /tmp; pwd); pwd', '/tmp\n/\n'],
    ['echo a | read v; echo "[$v]"', '[]\n'],
    ['printf "1 2\\n3 4\\n" > /tmp/f; while read a b; do echo "$b$a"; done < /tmp/f', '21\n43\n'],
    ['IFS=: read a b c <<EOF\nx:y:z:w\nEOF\necho $a $b $c', 'x y z:w\n'],
    ['yes | head -n 2', 'y\ny\n'],
    ["v=1; v=2 sh -c 'echo $v'; echo $v", '2\n1\n'],
    ["export V=9; sh -c 'echo $V'", '9\n'],
    ['set -e; echo one; false; echo two', 'one\n', 1],
    ['set -e; false || echo ok; if false; then :; fi; echo still', 'ok\nstill\n'],
    ['for f in /etc/host*; do echo $f; done', '/etc/hostname\n/etc/hosts\n'],
    ['echo /nomatch*', '/nomatch*\n'],
    ['trap "echo bye" EXIT; echo hi; exit 4', 'hi\nbye\n', 4],
    ['sleep 100 & echo $!; kill $!; wait; echo done $?', '7\ndone 0\n'],
    ['x=$(exit 3); echo $?', '3\n'],
    ['exec >/tmp/log 2>&1; echo one; nosuch; exec >/dev/null; cat /tmp/log >&2', ''],
    ['exec 2>&1; nosuch; exec < /etc/hostname; read h; echo got $h', 'sh: nosuch: not found\ngot web-0\n'],
    ['eval "a=1; echo \\$a"', '1\n'],
    ['for i in 1 2 3 4; do [ $i = 2 ] && continue; [ $i = 4 ] && break; echo $i; done', '1\n3\n'],
    ['type cd ls if; command -v echo', 'cd is a shell builtin\nls is /bin/ls\nif is a shell keyword\necho\n'],
    ['[ -z "" ] && [ -n x ] && [ a != b ] && [ 3 -ge 3 ] && [ ! -d /nope ] && [ -d /tmp -a -f /etc/hosts ] && echo all', 'all\n'],
  ];
  for (const [script, out, code = 0] of rows) {
    const r = await runSh(script);
    assert.deepEqual({ out: r.out, code: r.code }, { out, code }, script);
  }
});

test('ash errors: busybox texts and statuses', async () => {
  const rows: [string, string, string, number][] = [
    ['nosuch', '', 'sh: nosuch: not found\n', 127],
    ['/bin/nosuch arg', '', 'sh: /bin/nosuch: not found\n', 127],
    ['if true; then echo x', '', 'sh: syntax error: unexpected end of file (expecting "fi")\n', 2],
    ['echo a; fi', '', 'sh: syntax error: unexpected "fi"\n', 2],
    ['echo $((1/0)); echo after', '', 'sh: divide by zero\n', 2],
    ['cat < /nope', '', "sh: can't open /nope: no such file\n", 1],
    ['cd /nope', '', "sh: cd: can't cd to /nope: No such file or directory\n", 2],
    ['[ 1 -eq a ]', '', 'sh: a: bad number\n', 2],
    ['[ 1 = 1', '', 'sh: missing ]\n', 2],
    ['echo ${x:?is required}', '', 'sh: x: is required\n', 1],
  ];
  for (const [script, out, err, code] of rows) assert.deepEqual(await runSh(script), { out, err, code }, script);
});

test('trap TERM: the handler runs after the foreground command, as POSIX says; wait is interrupted at once; no trap: SIGTERM is ignored', async () => {
  const { FakeClock } = await import('../../shared/clock/clock.ts');
  const run = async (script: string) => {
    const clock = new FakeClock();
    let handler: ((s: string) => void) | undefined;
    let done = false;
    const c = ctx2({ sleep: (s) => clock.sleep(s * 1000), now: () => clock.now(), onSignal: (h) => (handler = h) });
    const p = runProcess(['sh', '-c', script], c.c).finally(() => (done = true));
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setImmediate(r));
      await clock.step(500);
    }
    const t0 = clock.now();
    const trapped = handler !== undefined;
    handler?.('TERM');
    for (let i = 0; i < 30 && !done; i++) {
      await new Promise((r) => setImmediate(r));
      await clock.step(100);
    }
    return { trapped, done, after: clock.now() - t0, out: c.out(), code: done ? (await p).exitCode : undefined };
  };
  assert.deepEqual(await run('trap "echo got TERM; exit 0" TERM; while true; do sleep 1; done'), {
    trapped: true,
    done: true,
    after: 1000,
    out: 'got TERM\n',
    code: 0,
  });
  assert.deepEqual(await run('trap "exit 0" SIGTERM; sleep 3600 & wait'), { trapped: true, done: true, after: 100, out: '', code: 0 });
  // A foreground sleep is not interrupted: the trap waits for it (and the runtime's SIGKILL comes first).
  assert.deepEqual(await run('trap "exit 0" 15; sleep 3600'), { trapped: true, done: false, after: 3000, out: '', code: undefined });
  assert.deepEqual(await run('sleep 3600'), { trapped: false, done: false, after: 3000, out: '', code: undefined });
});

test('sh reading piped commands runs each as it arrives, here-documents included, and ends at end of input', async () => {
  const r = await runSh('sh', {});
  assert.equal(r.code, 0);
  const { StdinPipe } = await import('./stdin-pipe.ts');
  const pipe = new StdinPipe();
  const s = ctx2({ stdin: pipe });
  const done = runProcess(['sh'], s.c);
  pipe.write('cat <<EOF\nline $((6*7))\n');
  await new Promise((res) => setImmediate(res));
  assert.equal(s.out(), '');
  pipe.write("EOF\nx=5\necho $x | awk '{print $1*2}'\n");
  pipe.end();
  assert.deepEqual(await done, { exitCode: 0 });
  assert.equal(s.out(), 'line 42\n10\n');
});

test("a container command that is not there: commandExists and containerd's error text", () => {
  const c = ctx();
  assert.equal(commandExists('sleep', c), true);
  assert.equal(commandExists('/bin/sh', c), true);
  assert.equal(commandExists('nosuch', c), false);
  assert.equal(
    executableNotFound('nosuch'),
    'failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: exec: "nosuch": executable file not found in $PATH: unknown',
  );
});
