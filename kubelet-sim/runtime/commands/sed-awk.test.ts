// Table tests of sed and awk one-liners against what busybox 1.36 prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkTable } from './test-helpers.ts';

const files = {
  '/d/f': 'b 2\na 10\nc 3\na 10\n',
  '/etc/app.conf': '# comment\nport=80\nhost=localhost\n\nmode=dev\n',
  '/d/passwd': 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n',
};

test('sed', () =>
  checkTable(
    [
      { sh: 'echo hello | sed s/l/L/', files, out: 'heLlo\n' },
      { sh: 'echo hello | sed s/l/L/g', files, out: 'heLLo\n' },
      { sh: 'echo hello | sed "s/l/L/2"', files, out: 'helLo\n' },
      { sh: 'sed -n 2p /d/f', files, out: 'a 10\n' },
      { sh: 'sed -n "2,3p" /d/f', files, out: 'a 10\nc 3\n' },
      { sh: 'sed "1d" /d/f', files, out: 'a 10\nc 3\na 10\n' },
      { sh: 'sed "/^#/d;/^$/d" /etc/app.conf', files, out: 'port=80\nhost=localhost\nmode=dev\n' },
      { sh: 'sed -n "/port/p" /etc/app.conf', files, out: 'port=80\n' },
      { sh: 'sed "s/=.*//" /etc/app.conf | sed -n "2,3p"', files, out: 'port\nhost\n' },
      { sh: 'sed -e "s/dev/prod/" -e "s/80/8080/" /etc/app.conf | grep -v "^#"', files, out: 'port=8080\nhost=localhost\n\nmode=prod\n' },
      { sh: 'sed -E "s/([a-z]+)=([0-9]+)/\\2:\\1/" /etc/app.conf | sed -n 2p', files, out: '80:port\n' },
      { sh: 'echo abc | sed "s/b/[&]/"', files, out: 'a[b]c\n' },
      { sh: 'sed -i "s/localhost/0.0.0.0/" /etc/app.conf; grep host /etc/app.conf', files, out: 'host=0.0.0.0\n' },
      { sh: "sed -n '$p' /d/f", files, out: 'a 10\n' },
      { sh: 'sed "2q" /d/f', files, out: 'b 2\na 10\n' },
      { sh: 'sed -n "/b/,/c/p" /d/f', files, out: 'b 2\na 10\nc 3\n' },
      { sh: 'sed "/a/!d" /d/f', files, out: 'a 10\na 10\n' },
      { sh: 'sed "1i\\\\top" /d/f | head -n 2', files, out: 'top\nb 2\n' },
      { sh: 'sed "\\$a end" /d/f | tail -n 1', files, out: 'end\n' },
      { sh: 'echo "a b" | sed "y/ab/xy/"', files, out: 'x y\n' },
      { sh: 'sed -n "=" /d/f | tail -n 1', files, out: '4\n' },
      { sh: 'echo x | sed "s/x/a\\/b/"', files, out: 'a/b\n' },
      { sh: 'echo "path/to" | sed "s|/|-|g"', files, out: 'path-to\n' },
    ],
    assert.deepEqual,
  ));

test('awk', () =>
  checkTable(
    [
      { sh: "awk '{print $1}' /d/f", files, out: 'b\na\nc\na\n' },
      { sh: "awk '{print $2, $1}' /d/f", files, out: '2 b\n10 a\n3 c\n10 a\n' },
      { sh: "awk -F: '{print $1, $3}' /d/passwd", files, out: 'root 0\nnobody 65534\n' },
      { sh: "awk -F: '$3 > 1000 {print $1}' /d/passwd", files, out: 'nobody\n' },
      { sh: "awk 'NR==2' /d/f", files, out: 'a 10\n' },
      { sh: "awk '/^a/ {n++} END {print n}' /d/f", files, out: '2\n' },
      { sh: "awk '{s += $2} END {print s, s/NR}' /d/f", files, out: '25 6.25\n' },
      { sh: 'awk \'{print NR": "$0}\' /d/f | head -n 1', files, out: '1: b 2\n' },
      { sh: "awk '{print NF}' /etc/app.conf | head -n 1", files, out: '2\n' },
      { sh: "awk '{print $NF}' /d/f | head -n 1", files, out: '2\n' },
      { sh: "awk '{c[$1]++} END {for (k in c) print k, c[k]}' /d/f | sort", files, out: 'a 2\nb 1\nc 1\n' },
      { sh: 'awk \'{printf "%-3s|%5.1f\\n", $1, $2}\' /d/f | head -n 2', files, out: 'b  |  2.0\na  | 10.0\n' },
      { sh: 'awk \'BEGIN {print 7/2, 2^10, int(7/2), length("abc"), toupper("x")}\'', files, out: '3.5 1024 3 3 X\n' },
      {
        sh: 'awk \'BEGIN {s = "a-b-c"; n = split(s, p, "-"); print n, p[3]; print substr("hello", 2, 3), index("hello", "ll")}\'',
        files,
        out: '3 c\nell 3\n',
      },
      { sh: "echo 'foo bar foo' | awk '{gsub(/foo/, \"x\"); print}'", files, out: 'x bar x\n' },
      { sh: 'echo \'3 4\' | awk \'{if ($1 > $2) print "gt"; else print "le"}\'', files, out: 'le\n' },
      { sh: 'awk \'BEGIN {for (i = 1; i <= 3; i++) printf "%d ", i; print ""}\'', files, out: '1 2 3 \n' },
      { sh: "echo 'a b c' | awk '{$2 = \"X\"; print; print NF}'", files, out: 'a X c\n3\n' },
      { sh: "echo 'a,b' | awk -F, -v OFS=';' '{$1 = $1; print}'", files, out: 'a;b\n' },
      { sh: "awk -v n=2 'NR == n {print $2}' /d/f", files, out: '10\n' },
      { sh: 'awk \'$1 == "a" && $2 >= 10\' /d/f | wc -l', files, out: '2\n' },
      { sh: 'echo \'10 9\' | awk \'{print ($1 > $2) ? "num" : "str"}\'', files, out: 'num\n' },
      { sh: "awk 'END {print NR}' /d/f", files, out: '4\n' },
    ],
    assert.deepEqual,
  ));
