// Table tests of the file applets and tar against what busybox 1.36 prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../shared/clock/clock.ts';
import { SimFs, Volume, emptyDirVolume } from '../filesystem.ts';
import { applyMode, modeString } from './files.ts';
import { readArchive } from './tar.ts';
import { checkTable, runSh } from './test-helpers.ts';

const files = { '/app/a.txt': 'hello\n', '/app/sub/b.txt': 'x'.repeat(5000) };

test('cat, ls, mkdir -p, cp, mv, rm, ln -s, chmod', () =>
  checkTable(
    [
      { sh: 'cat /app/a.txt /nope', files, out: 'hello\n', err: "cat: can't open '/nope': No such file or directory\n", code: 1 },
      { sh: 'cat -n /app/a.txt', files, out: '     1\thello\n' },
      { sh: 'ls /app', files, out: 'a.txt\nsub\n' },
      { sh: 'ls /nope', files, out: '', err: 'ls: /nope: No such file or directory\n', code: 1 },
      { sh: 'ls -l /app | head -n 2', files, out: 'total 8\n-rw-r--r--    1 root     root             6 Jan  1 00:00 a.txt\n' },
      { sh: 'mkdir /x/y', out: '', err: "mkdir: can't create directory '/x/y': No such file or directory\n", code: 1 },
      { sh: 'mkdir -p /x/y/z && ls /x/y && mkdir /x; echo $?', out: 'z\n1\n', err: "mkdir: can't create directory '/x': File exists\n" },
      { sh: 'cp /app/a.txt /tmp/ && cat /tmp/a.txt', files, out: 'hello\n' },
      { sh: 'cp /app /tmp/app', files, out: '', err: "cp: omitting directory '/app'\n", code: 1 },
      { sh: 'cp -r /app /tmp/app && ls /tmp/app/sub', files, out: 'b.txt\n' },
      { sh: 'mv /app/a.txt /app/c.txt && ls /app', files, out: 'c.txt\nsub\n' },
      { sh: 'rm /app/sub', files, out: '', err: "rm: '/app/sub' is a directory\n", code: 1 },
      { sh: 'rm -rf /app/sub /nope && ls /app', files, out: 'a.txt\n' },
      { sh: 'rm /nope', out: '', err: "rm: can't remove '/nope': No such file or directory\n", code: 1 },
      { sh: 'ln -s /app/a.txt /tmp/link && cat /tmp/link', files, out: 'hello\n' },
      {
        sh: 'chmod +x /app/a.txt && echo ok; chmod 644 /nope',
        files,
        out: 'ok\n',
        err: 'chmod: /nope: No such file or directory\n',
        code: 1,
      },
      { sh: 'touch /tmp/new && test -f /tmp/new && test ! -s /tmp/new && echo empty', out: 'empty\n' },
      { sh: 'find /app -name "*.txt" | sort', files, out: '/app/a.txt\n/app/sub/b.txt\n' },
      { sh: 'find /app -type d', files, out: '/app\n/app/sub\n' },
    ],
    assert.deepEqual,
  ));

test('mode strings and chmod modes as busybox reads and prints them', () => {
  const modes: [number, boolean, string][] = [
    [0o644, false, '-rw-r--r--'],
    [0o755, true, 'drwxr-xr-x'],
    [0o2777, true, 'drwxrwsrwx'],
    [0o2664, false, '-rw-rwSr--'],
    [0o1777, true, 'drwxrwxrwt'],
    [0o1776, true, 'drwxrwxrwT'],
    [0o4755, false, '-rwsr-xr-x'],
  ];
  for (const [m, dir, want] of modes) assert.equal(modeString(m, dir), want, m.toString(8));
  const specs: [string, number, boolean, number | undefined][] = [
    ['755', 0o644, false, 0o755],
    ['2775', 0o755, true, 0o2775],
    ['+x', 0o644, false, 0o755],
    ['u+x', 0o644, false, 0o744],
    ['go-r', 0o644, false, 0o600],
    ['a=r', 0o755, false, 0o444],
    ['u=rwx,g=rx,o=', 0o644, false, 0o750],
    ['g+s', 0o755, true, 0o2755],
    ['+t', 0o777, true, 0o1777],
    ['a+X', 0o644, true, 0o755],
    ['a+X', 0o644, false, 0o644],
    ['u+z', 0o644, false, undefined],
    ['999', 0o644, false, undefined],
  ];
  for (const [spec, mode, dir, want] of specs) assert.equal(applyMode(spec, mode, dir), want, spec);
});

test('owners and modes: a process creates files as itself; chmod and chown store; fsGroup volumes are setgid', async () => {
  const fs = new SimFs({ '/etc/passwd': 'root:x:0:0:root:/root:/bin/sh\nweb:x:1000:1000::/home/web:/bin/sh\n' });
  fs.owner = { uid: 1000, gid: 3000 };
  const demo = emptyDirVolume('demo');
  demo.applyFsGroup(2000);
  fs.mount('/data/demo', demo);
  const cfg = new Volume('config', true);
  cfg.replace({ 'app.conf': 'x=1\n' });
  cfg.applyFsGroup(2000);
  fs.mount('/etc/config', cfg);
  const sh = async (script: string) => runSh(script, { fs });
  const line = (out: string) => out.replace(/ +/g, ' ').replace(/ \w{3} +\d+ \d\d:\d\d /, ' DATE ');
  assert.equal(line((await sh('ls -ld /data/demo')).out), 'drwxrwsrwx 2 root 2000 4096 DATE /data/demo\n');
  assert.equal(
    line((await sh('echo hello > /data/demo/testfile; ls -l /data/demo/testfile')).out),
    '-rw-r--r-- 1 web 2000 6 DATE /data/demo/testfile\n',
  );
  assert.equal(line((await sh('mkdir /data/demo/sub; ls -ld /data/demo/sub')).out), 'drwxr-sr-x 2 web 2000 4096 DATE /data/demo/sub\n');
  // Outside the setgid volume a new file takes the process's own group.
  assert.equal(line((await sh('touch /tmp/f; ls -l /tmp/f')).out), '-rw-r--r-- 1 web 3000 0 DATE /tmp/f\n');
  assert.equal(line((await sh('ls -l /etc/config/app.conf')).out), '-rw-r--r-- 1 root 2000 4 DATE /etc/config/app.conf\n');
  assert.equal(line((await sh('chmod 600 /tmp/f && chown root:0 /tmp/f && ls -l /tmp/f')).out), '-rw------- 1 root root 0 DATE /tmp/f\n');
  assert.equal(
    line((await sh('chmod -R g+w /data/demo && ls -l /data/demo/sub -d')).out),
    'drwxrwsr-x 2 web 2000 4096 DATE /data/demo/sub\n',
  );
  const bad = await sh('chown nobody-here /tmp/f; chmod 644 /etc/config/app.conf; chmod q+r /tmp/f');
  assert.equal(bad.err, "chown: unknown user nobody-here\nchmod: /etc/config/app.conf: Read-only file system\nchmod: invalid mode 'q+r'\n");
  assert.equal(line((await sh('ls -ld /tmp')).out), 'drwxrwxrwt 2 root root 4096 DATE /tmp\n');
});

test('du, df, mount', async () => {
  await checkTable(
    [
      { sh: 'du -s /app', files, out: '20\t/app\n' },
      { sh: 'du -sh /app', files, out: '20.0K\t/app\n' },
      { sh: 'du /app', files, out: '12\t/app/sub\n20\t/app\n' },
      { sh: 'df / | head -n 1', out: 'Filesystem           1K-blocks      Used Available Use% Mounted on\n' },
      { sh: 'df -h | head -n 1', out: 'Filesystem                Size      Used Available Use% Mounted on\n' },
      { sh: 'mount | head -n 1', out: 'overlay on / type overlay (rw,relatime)\n' },
    ],
    assert.deepEqual,
  );
  // A read-only ConfigMap volume shows as its mount, ro.
  const fs = new SimFs({ '/etc/hostname': 'web-0\n' });
  const cfg = new Volume('cfg', true);
  cfg.replace({ 'app.conf': 'x\n' });
  fs.mount('/etc/config', cfg);
  let out = '';
  const { runProcess } = await import('../shell.ts');
  const clock = new FakeClock();
  await runProcess(['sh', '-c', 'mount | grep /etc/config; df /etc/config | tail -n 1'], {
    fs,
    env: new Map(),
    out: (t) => (out += t),
    sleep: (s) => clock.sleep(s * 1000),
    now: () => clock.now(),
  });
  assert.equal(
    out,
    '/dev/sda1 on /etc/config type ext4 (ro,relatime)\n/dev/sda1            102626232  18472722  84153510  18% /etc/config\n',
  );
});

test('tar: c, t, x with -f and -C; the archive is ustar, readable by any tar', async () => {
  await checkTable(
    [
      {
        sh: 'tar cf - /app | tar tf -',
        files,
        out: 'app/\napp/a.txt\napp/sub/\napp/sub/b.txt\n',
        err: "tar: removing leading '/' from member names\n",
      },
      {
        sh: 'cd /app && tar cf /tmp/x.tar a.txt sub && mkdir /out && tar -xmf /tmp/x.tar -C /out && ls /out && cat /out/a.txt',
        files,
        out: 'a.txt\nsub\nhello\n',
      },
      { sh: 'tar czf /tmp/x.tgz -C /app . && tar tzf /tmp/x.tgz | head -n 2', files, out: './\n./a.txt\n' },
      {
        sh: 'tar cf - /nope > /dev/null',
        out: '',
        err: "tar: removing leading '/' from member names\ntar: /nope: No such file or directory\n",
        code: 1,
      },
      { sh: 'tar xf /nope.tar', out: '', err: "tar: can't open '/nope.tar': No such file or directory\n", code: 1 },
      {
        sh: 'tar -xf - -C /nodir < /dev/null',
        out: '',
        err: "tar: can't change directory to '/nodir': No such file or directory\n",
        code: 1,
      },
    ],
    assert.deepEqual,
  );
  const r = await runSh('tar cf - -C /app a.txt', { files });
  const bytes = Buffer.from(r.out, 'utf8');
  assert.equal(bytes.length, 512 * 4);
  assert.equal(bytes.subarray(257, 263).toString('latin1'), 'ustar\0');
  // The checksum field is the sum of the header's bytes with the field itself as spaces.
  const h = Buffer.from(bytes.subarray(0, 512));
  const stored = parseInt(h.subarray(148, 154).toString('latin1'), 8);
  h.fill(' ', 148, 156);
  assert.equal(
    stored,
    h.reduce((s, b) => s + b, 0),
  );
  const parsed = readArchive(bytes);
  assert.ok(!('error' in parsed));
  assert.deepEqual(
    parsed.entries.map((e) => [e.name, e.content]),
    [['a.txt', 'hello\n']],
  );
});
