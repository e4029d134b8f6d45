// Table tests of the text applets against what busybox 1.36 prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkTable } from './test-helpers.ts';

const data = { '/d/f': 'b 2\na 10\nc 3\na 10\n', '/d/csv': 'name,age,city\nann,31,Oslo\nbob,27,Rome\n' };

test('head and tail', () =>
  checkTable(
    [
      { sh: 'seq 20 | head -n 3', out: '1\n2\n3\n' },
      { sh: 'seq 20 | head -2', out: '1\n2\n' },
      { sh: 'seq 20 | tail -n 2', out: '19\n20\n' },
      { sh: 'seq 5 | tail -n +4', out: '4\n5\n' },
      { sh: 'seq 12 | tail -3', out: '10\n11\n12\n' },
      { sh: 'printf abcdef | head -c 3', out: 'abc' },
      { sh: 'head -n 1 /d/f /d/csv', files: data, out: '==> /d/f <==\nb 2\n\n==> /d/csv <==\nname,age,city\n' },
      { sh: 'head /nope', out: '', err: "head: can't open '/nope': No such file or directory\n", code: 1 },
    ],
    assert.deepEqual,
  ));

test('tail -f follows a file as it grows (checked once a second)', async () => {
  const { runSh } = await import('./test-helpers.ts');
  const r = await runSh(
    'echo one > /tmp/log; (sleep 2; echo two >> /tmp/log; sleep 2; echo three >> /tmp/log) & tail -f /tmp/log & sleep 6; kill %2 2>/dev/null; exit 0',
  );
  assert.equal(r.out, 'one\ntwo\nthree\n');
});

test('cut and tr', () =>
  checkTable(
    [
      { sh: 'cut -d, -f2 /d/csv', files: data, out: 'age\n31\n27\n' },
      { sh: 'cut -d, -f1,3 /d/csv', files: data, out: 'name,city\nann,Oslo\nbob,Rome\n' },
      { sh: 'echo abcdef | cut -c2-4', out: 'bcd\n' },
      { sh: 'printf "a:b\\nnodelim\\n" | cut -d: -f2', out: 'b\nnodelim\n' },
      { sh: 'printf "a:b\\nnodelim\\n" | cut -s -d: -f2', out: 'b\n' },
      { sh: 'echo hello | tr a-z A-Z', out: 'HELLO\n' },
      { sh: 'echo hello | tr -d l', out: 'heo\n' },
      { sh: 'echo "a   b" | tr -s " "', out: 'a b\n' },
      { sh: 'echo Hello123 | tr -cd "[:digit:]"', out: '123' },
      { sh: 'echo a-b | tr "-" "_"', out: 'a_b\n' },
      { sh: 'echo "x y" | tr " " "\\n"', out: 'x\ny\n' },
    ],
    assert.deepEqual,
  ));

test('wc: one count bare, several %9u, then the name', () =>
  checkTable(
    [
      { sh: 'echo hello world | wc -l', out: '1\n' },
      { sh: 'echo hello world | wc -w', out: '2\n' },
      { sh: 'echo hello world | wc -c', out: '12\n' },
      { sh: 'echo hello world | wc', out: '        1         2        12\n' },
      { sh: 'wc -l /d/f', files: data, out: '4 /d/f\n' },
      { sh: 'wc /d/f', files: data, out: '        4         8        18 /d/f\n' },
      { sh: 'wc -l /d/f /d/csv', files: data, out: '        4 /d/f\n        3 /d/csv\n        7 total\n' },
    ],
    assert.deepEqual,
  ));

test('grep', () =>
  checkTable(
    [
      { sh: 'grep a /d/f', files: data, out: 'a 10\na 10\n' },
      { sh: 'grep -c a /d/f', files: data, out: '2\n' },
      { sh: 'grep -v a /d/f', files: data, out: 'b 2\nc 3\n' },
      { sh: 'grep -n c /d/f', files: data, out: '3:c 3\n' },
      { sh: 'grep -i ANN /d/csv', files: data, out: 'ann,31,Oslo\n' },
      { sh: 'grep -E "^(b|c) " /d/f', files: data, out: 'b 2\nc 3\n' },
      { sh: 'grep "^[bc] [0-9]\\{1\\}$" /d/f', files: data, out: 'b 2\nc 3\n' },
      { sh: 'grep -o "[0-9][0-9]*" /d/f | head -n 2', files: data, out: '2\n10\n' },
      { sh: 'grep -q zzz /d/f; echo $?', files: data, out: '1\n' },
      { sh: 'grep -q b /d/f && echo found', files: data, out: 'found\n' },
      { sh: 'grep -w 1 /d/f; echo $?', files: data, out: '1\n' },
      { sh: 'grep ann /d/f /d/csv', files: data, out: '/d/csv:ann,31,Oslo\n' },
      { sh: 'grep x /nope', out: '', err: 'grep: /nope: No such file or directory\n', code: 2 },
      { sh: 'echo foo | grep -F "f.o"; echo $?', out: '1\n' },
    ],
    assert.deepEqual,
  ));

test('sort and uniq', () =>
  checkTable(
    [
      { sh: 'sort /d/f', files: data, out: 'a 10\na 10\nb 2\nc 3\n' },
      { sh: 'sort -u /d/f', files: data, out: 'a 10\nb 2\nc 3\n' },
      { sh: 'sort -r /d/f', files: data, out: 'c 3\nb 2\na 10\na 10\n' },
      { sh: 'sort -k2 -n /d/f', files: data, out: 'b 2\nc 3\na 10\na 10\n' },
      { sh: 'sort -k2,2nr /d/f', files: data, out: 'a 10\na 10\nc 3\nb 2\n' },
      { sh: 'printf "10\\n9\\n100\\n" | sort', out: '10\n100\n9\n' },
      { sh: 'printf "10\\n9\\n100\\n" | sort -n', out: '9\n10\n100\n' },
      { sh: 'sort -t, -k2 -n /d/csv', files: data, out: 'name,age,city\nbob,27,Rome\nann,31,Oslo\n' },
      { sh: 'sort /d/f | uniq', files: data, out: 'a 10\nb 2\nc 3\n' },
      { sh: 'sort /d/f | uniq -c', files: data, out: '      2 a 10\n      1 b 2\n      1 c 3\n' },
      { sh: 'sort /d/f | uniq -d', files: data, out: 'a 10\n' },
      { sh: 'sort /d/f | uniq -u', files: data, out: 'b 2\nc 3\n' },
      { sh: 'awk "{print \\$1}" /d/f | sort | uniq -c | sort -rn', files: data, out: '      2 a\n      1 c\n      1 b\n' },
    ],
    assert.deepEqual,
  ));

test('seq, yes, xargs, tee, basename, dirname, expr, printf', () =>
  checkTable(
    [
      { sh: 'seq 3', out: '1\n2\n3\n' },
      { sh: 'seq 2 4', out: '2\n3\n4\n' },
      { sh: 'seq 10 -3 1', out: '10\n7\n4\n1\n' },
      { sh: 'seq -s, 3', out: '1,2,3\n' },
      { sh: 'seq -w 8 10', out: '08\n09\n10\n' },
      { sh: 'seq 0 0.5 1', out: '0.0\n0.5\n1.0\n' },
      { sh: 'yes ok | head -n 2', out: 'ok\nok\n' },
      { sh: 'seq 5 | xargs', out: '1 2 3 4 5\n' },
      { sh: 'seq 5 | xargs -n 2 echo n', out: 'n 1 2\nn 3 4\nn 5\n' },
      { sh: 'printf "a\\nb\\n" | xargs -I{} echo "<{}>"', out: '<a>\n<b>\n' },
      { sh: 'echo hi | tee /tmp/t; cat /tmp/t', out: 'hi\nhi\n' },
      { sh: 'echo more | tee -a /tmp/t >/dev/null; echo x > /tmp/t; echo y | tee -a /tmp/t > /dev/null; cat /tmp/t', out: 'x\ny\n' },
      {
        sh: 'basename /var/log/app.log .log; basename /usr/bin/; dirname /var/log/app.log; dirname app.log',
        out: 'app\nbin\n/var/log\n.\n',
      },
      { sh: 'expr 6 \\* 7; expr 10 / 3; expr length hello; expr 2 \\> 1', out: '42\n3\n5\n1\n' },
      { sh: 'printf "%s=%d\\n" a 1 b 2', out: 'a=1\nb=2\n' },
      { sh: 'printf "%05.1f|%-4s|%4s|%o|%X|%c\\n" 3.14159 ab cd 8 255 xyz', out: '003.1|ab  |  cd|10|FF|x\n' },
      { sh: 'printf "%d\\n" abc', out: '0\n', err: "printf: invalid number 'abc'\n", code: 1 },
    ],
    assert.deepEqual,
  ));
