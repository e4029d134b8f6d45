// A redis server's wire protocol, enough for the labs: PING, ECHO, SET, GET,
// DEL, EXISTS, INCR, DBSIZE, KEYS, FLUSHALL, in RESP or inline commands, over
// one in-memory keyspace per server process; and redis-cli's way of
// printing a reply when its output is not a terminal (PONG, a bare value).

/** Splits a client's bytes into commands: RESP arrays (*2\r\n$4\r\nECHO...) or inline lines (PING). */
export function parseCommands(data: string): string[][] {
  const out: string[][] = [];
  const lines = data.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('*')) {
      const n = Number(line.slice(1));
      const cmd: string[] = [];
      for (let k = 0; k < n && i + 2 < lines.length + 1; k++) {
        i += 2;
        cmd.push(lines[i] ?? '');
      }
      out.push(cmd);
    } else if (line.trim()) out.push(line.trim().split(/\s+/));
  }
  return out;
}

const bulk = (v: string | undefined) => (v === undefined ? '$-1\r\n' : `$${Buffer.byteLength(v)}\r\n${v}\r\n`);

/** One server's keyspace and its command table; returns RESP replies. */
export function redisListener(): { tcp(data: string): string } {
  const db = new Map<string, string>();
  const run = (argv: string[]): string => {
    const [name = '', ...a] = argv;
    switch (name.toUpperCase()) {
      case 'PING':
        return a.length ? bulk(a[0]) : '+PONG\r\n';
      case 'ECHO':
        return bulk(a[0]);
      case 'SET':
        db.set(a[0], a[1] ?? '');
        return '+OK\r\n';
      case 'GET':
        return bulk(db.get(a[0]));
      case 'DEL':
        return `:${a.filter((k) => db.delete(k)).length}\r\n`;
      case 'EXISTS':
        return `:${a.filter((k) => db.has(k)).length}\r\n`;
      case 'INCR': {
        const v = Number(db.get(a[0]) ?? '0');
        if (!Number.isInteger(v)) return '-ERR value is not an integer or out of range\r\n';
        db.set(a[0], String(v + 1));
        return `:${v + 1}\r\n`;
      }
      case 'DBSIZE':
        return `:${db.size}\r\n`;
      case 'KEYS': {
        const re = new RegExp(
          `^${(a[0] ?? '*')
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '.*')
            .replace(/\?/g, '.')}$`,
        );
        const keys = [...db.keys()].filter((k) => re.test(k));
        return `*${keys.length}\r\n${keys.map(bulk).join('')}`;
      }
      case 'FLUSHALL':
      case 'FLUSHDB':
        db.clear();
        return '+OK\r\n';
      default:
        return `-ERR unknown command '${name}', with args beginning with: ${a.map((x) => `'${x}' `).join('')}\r\n`;
    }
  };
  return { tcp: (data) => parseCommands(data).map(run).join('') };
}

/** A command as RESP, as redis-cli sends it. */
export function encodeCommand(argv: string[]): string {
  return `*${argv.length}\r\n${argv.map(bulk).join('')}`;
}

/** redis-cli's output of one reply when stdout is not a terminal. */
export function formatReply(reply: string): string {
  const lines = reply.split('\r\n');
  const render = (i: number): [string, number] => {
    const l = lines[i] ?? '';
    const t = l[0];
    if (t === '+' || t === ':') return [l.slice(1), i + 1];
    if (t === '-') return [l.slice(1), i + 1];
    if (t === '$') return Number(l.slice(1)) < 0 ? ['', i + 1] : [lines[i + 1] ?? '', i + 2];
    if (t === '*') {
      const n = Number(l.slice(1));
      const items: string[] = [];
      let j = i + 1;
      for (let k = 0; k < n; k++) {
        const [s, next] = render(j);
        items.push(s);
        j = next;
      }
      return [items.join('\n'), j];
    }
    return [l, i + 1];
  };
  return render(0)[0] + '\n';
}
