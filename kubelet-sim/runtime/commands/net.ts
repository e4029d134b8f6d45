// The network applets over the simulated cluster network: ping (busybox's
// output; a Pod IP answers, a ClusterIP does not, as with kube-proxy in
// iptables mode), nslookup, and busybox wget / curl through Services to their
// ready endpoints.
import { getopts, flag, usage, type Command, type CommandHost } from './types.ts';

/** A round-trip time in microseconds that looks like a Pod network's, varying a little per packet. */
const rttUs = (seq: number) => 45 + ((seq * 37) % 50);
/** Microseconds as busybox prints them (%u.%03u ms). */
const ms = (us: number) => `${Math.floor(us / 1000)}.${String(us % 1000).padStart(3, '0')}`;

export const ping: Command = async (args, io, host) => {
  const o = getopts(args, 'qn46', 'cWwsiI');
  if ('error' in o) return usage(io, 'ping', o.error);
  const target = o.rest[0];
  if (!target) return usage(io, 'ping', 'missing operand');
  const count = Number(flag(o.flags, 'c') ?? Infinity);
  const deadline = flag(o.flags, 'w') !== undefined ? Number(flag(o.flags, 'w')) : Infinity;
  const interval = Number(flag(o.flags, 'i') ?? 1);
  const size = Number(flag(o.flags, 's') ?? 56);
  const quiet = o.flags.has('q');
  const r = host.ctx.net?.resolve(target);
  if (!r) {
    io.err(`ping: bad address '${target}'\n`);
    return 1;
  }
  const ip = r.ip;
  // A ClusterIP is virtual: kube-proxy's iptables rules only rewrite the Service's ports, ICMP gets no answer.
  const answers = !(r.service && !r.headless && r.service.spec?.clusterIP === ip);
  io.out(`PING ${target} (${ip}): ${size} data bytes\n`);
  const times: number[] = [];
  let sent = 0;
  const started = host.ctx.now();
  let interrupted = false;
  try {
    while (sent < count && (host.ctx.now() - started) / 1000 < deadline) {
      const seq = sent++;
      if (answers) {
        const t = rttUs(seq);
        times.push(t);
        if (!quiet) io.out(`${size + 8} bytes from ${ip}: seq=${seq} ttl=${ip === '127.0.0.1' ? 64 : 63} time=${ms(t)} ms\n`);
      }
      if (sent < count) await host.ctx.sleep(interval);
    }
  } catch (e) {
    interrupted = true;
    throw e;
  } finally {
    if (!interrupted) {
      const lost = sent ? Math.round(((sent - times.length) * 100) / sent) : 0;
      io.out(`\n--- ${target} ping statistics ---\n${sent} packets transmitted, ${times.length} packets received, ${lost}% packet loss\n`);
      if (times.length) {
        const min = Math.min(...times);
        const max = Math.max(...times);
        const avg = Math.floor(times.reduce((a, b) => a + b, 0) / times.length);
        io.out(`round-trip min/avg/max = ${ms(min)}/${ms(avg)}/${ms(max)} ms\n`);
      }
    }
  }
  return times.length ? 0 : 1;
};

export const nslookup: Command = (args, io, host) => {
  const name = args.find((a) => !a.startsWith('-')) ?? '';
  const net = host.ctx.net;
  const server = net?.nameserver ?? '10.96.0.10';
  io.out(`Server:\t\t${server}\nAddress:\t${server}:53\n\n`);
  const r = net?.resolve(name);
  if (!r) {
    const tried = net?.candidates(name) ?? [name];
    io.out(`** server can't find ${tried[0] ?? name}: NXDOMAIN\n\n`);
    return 1;
  }
  for (const ip of r.ips) io.out(`Name:\t${r.fqdn}\nAddress: ${ip}\n`);
  io.out('\n');
  return 0;
};

/** busybox wget and curl against the simulated cluster network. */
function http(cmd: 'wget' | 'curl'): Command {
  return async (args, io, host: CommandHost) => {
    const err = io.err;
    let url = '';
    let outFile: string | undefined;
    let quiet = false;
    let fail = false;
    let spider = false;
    // How long the client waits for a connection nobody answers (a NetworkPolicy drops it): busybox wget's
    // default network timeout is 900 s, curl's connect timeout 300 s.
    let timeout = cmd === 'wget' ? 900 : 300;
    const headers: Record<string, string> = {};
    const header = (h: string | undefined) => {
      const i = (h ?? '').indexOf(':');
      if (i > 0) headers[h!.slice(0, i).trim()] = h!.slice(i + 1).trim();
    };
    const outFlag = cmd === 'wget' ? 'O' : 'o';
    for (let i = 0; i < args.length; i++) {
      const eq = args[i].startsWith('--') ? args[i].indexOf('=') : -1;
      const a = eq > 0 ? args[i].slice(0, eq) : args[i];
      const value = () => (eq > 0 ? args[i].slice(eq + 1) : args[++i]);
      if (a === '--output' || a === '--output-document') outFile = value();
      else if (a.startsWith('--')) {
        if (a === '--silent' || a === '--quiet') quiet = true;
        if (a === '--fail') fail = true;
        if (a === '--spider') spider = true;
        if (['--timeout', '--max-time', '--connect-timeout'].includes(a)) timeout = Number(value());
        if (a === '--header') header(value());
      } else if (a.startsWith('-') && a.length > 1) {
        // A cluster of short flags, e.g. -qO- or -sSf.
        for (let k = 1; k < a.length; k++) {
          const f = a[k];
          if (f === outFlag || 'TmHwU'.includes(f)) {
            const value = a.length > k + 1 ? a.slice(k + 1) : args[++i];
            if (f === outFlag) outFile = value;
            if (f === 'T' || f === 'm') timeout = Number(value);
            if (f === 'H') header(value);
            break;
          }
          if (f === (cmd === 'wget' ? 'q' : 's')) quiet = true;
          if (cmd === 'curl' && f === 'f') fail = true;
        }
      } else url = a;
    }
    if (cmd === 'wget' && outFile === undefined)
      outFile =
        url
          .replace(/^[a-z]+:\/\//, '')
          .split('/')
          .slice(1)
          .pop() || 'index.html';
    const u = (() => {
      try {
        return new URL(/^[a-z]+:\/\//.test(url) ? url : `http://${url}`);
      } catch {
        return undefined;
      }
    })();
    const hostName = u?.hostname ?? url;
    const port = u?.port || '80';
    const net = host.ctx.net;
    const res = net?.httpGet(url, { headers }) ?? { ok: false as const, error: 'resolve' as const };
    await host.ctx.sleep(0.01);
    // Dropped packets: nothing answers until the client gives up, on the cluster clock.
    if (!res.ok && res.error === 'timeout') await host.ctx.sleep(timeout);
    if (!res.ok) {
      if (cmd === 'wget') {
        err(
          res.error === 'resolve'
            ? `wget: bad address '${hostName}${u?.port ? `:${port}` : ''}'\n`
            : res.error === 'timeout'
              ? 'wget: download timed out\n'
              : `wget: can't connect to remote host (${res.ip}): Connection refused\n`,
        );
        return 1;
      }
      if (res.error === 'resolve') {
        err(`curl: (6) Could not resolve host: ${hostName}\n`);
        return 6;
      }
      if (res.error === 'timeout') {
        err(`curl: (28) Connection timed out after ${Math.round(timeout * 1000) + 1} milliseconds\n`);
        return 28;
      }
      err(`curl: (7) Failed to connect to ${hostName} port ${port} after 0 ms: Couldn't connect to server\n`);
      return 7;
    }
    if (cmd === 'wget') {
      if (!quiet) err(`Connecting to ${hostName}${u?.port ? `:${port}` : ''} (${net?.resolve(hostName)?.ip}:${port})\n`);
      if (res.status >= 400) {
        err(
          `wget: server returned error: HTTP/1.1 ${res.status} ${res.status === 404 ? 'Not Found' : res.status === 403 ? 'Forbidden' : res.status === 500 ? 'Internal Server Error' : res.status === 503 ? 'Service Unavailable' : 'Error'}\n`,
        );
        return 1;
      }
      if (spider) {
        if (!quiet) err('remote file exists\n');
        return 0;
      }
      if (outFile === '-') {
        if (!quiet) err('writing to stdout\n');
        io.out(res.body);
        if (!quiet)
          err(`-                    100% |********************************|   ${res.body.length}  0:00:00 ETA\nwritten to stdout\n`);
      } else {
        const e = host.ctx.fs.write(outFile!, res.body);
        if (e) {
          err(`wget: can't open '${outFile}': ${e}\n`);
          return 1;
        }
        if (!quiet)
          err(
            `saving to '${outFile}'\n${outFile!.padEnd(20)} 100% |********************************|   ${res.body.length}  0:00:00 ETA\n'${outFile}' saved\n`,
          );
      }
      return 0;
    }
    if (fail && res.status >= 400) {
      if (!quiet) err(`curl: (22) The requested URL returned error: ${res.status}\n`);
      return 22;
    }
    if (outFile && outFile !== '-') host.ctx.fs.write(outFile, res.body);
    else io.out(res.body);
    return 0;
  };
}

export const wget = http('wget');
export const curl = http('curl');

/** The Pod's address: the context's, else what kubelet's /etc/hosts maps the host name to. */
function podAddress(host: CommandHost): string | undefined {
  if (host.ctx.podIP) return host.ctx.podIP;
  const fs = host.ctx.fs;
  const name = (fs.read('/etc/hostname') ?? '').trim();
  const line = (fs.read('/etc/hosts') ?? '').split('\n').find((l) => l.split(/\s+/).slice(1).includes(name));
  return line?.split(/\s+/)[0];
}

/** A MAC for the Pod's veth, derived from its IP (CNIs make one per Pod). */
const macOf = (ip: string) => ['0a', '58', ...ip.split('.').map((o) => Number(o).toString(16).padStart(2, '0'))].join(':');

/** ip addr | ip route, as busybox prints them for a Pod's lo and eth0. */
export const ip: Command = (args, io, host) => {
  const obj = args.find((a) => !a.startsWith('-')) ?? '';
  const addr = podAddress(host);
  const net24 = addr?.split('.').slice(0, 3).join('.');
  if (/^a(d(d(r(e(s(s)?)?)?)?)?)?$/.test(obj) || obj === 'link' || obj === 'l') {
    io.out('1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue qlen 1000\n    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n');
    if (obj.startsWith('a')) io.out('    inet 127.0.0.1/8 scope host lo\n       valid_lft forever preferred_lft forever\n');
    if (addr) {
      io.out(
        `2: eth0@if7: <BROADCAST,MULTICAST,UP,LOWER_UP,M-DOWN> mtu 1500 qdisc noqueue \n    link/ether ${macOf(addr)} brd ff:ff:ff:ff:ff:ff\n`,
      );
      if (obj.startsWith('a'))
        io.out(`    inet ${addr}/24 brd ${net24}.255 scope global eth0\n       valid_lft forever preferred_lft forever\n`);
    }
    return 0;
  }
  if (/^r(o(u(t(e)?)?)?)?$/.test(obj)) {
    if (addr) io.out(`default via ${net24}.1 dev eth0 \n${net24}.0/24 dev eth0 scope link  src ${addr} \n`);
    return 0;
  }
  io.err(
    obj
      ? `ip: unknown object ${obj}\n`
      : 'BusyBox v1.36.1 multi-call binary.\n\nUsage: ip [OPTIONS] address|route|link|tunnel|neigh|rule [ARGS]\n',
  );
  return 1;
};

/** ifconfig: eth0 and lo. */
export const ifconfig: Command = (_args, io, host) => {
  const addr = podAddress(host);
  if (addr) {
    const net24 = addr.split('.').slice(0, 3).join('.');
    io.out(
      `eth0      Link encap:Ethernet  HWaddr ${macOf(addr).toUpperCase()}  \n          inet addr:${addr}  Bcast:${net24}.255  Mask:255.255.255.0\n          UP BROADCAST RUNNING MULTICAST  MTU:1500  Metric:1\n          RX packets:0 errors:0 dropped:0 overruns:0 frame:0\n          TX packets:0 errors:0 dropped:0 overruns:0 carrier:0\n          collisions:0 txqueuelen:0 \n          RX bytes:0 (0.0 B)  TX bytes:0 (0.0 B)\n\n`,
    );
  }
  io.out(
    'lo        Link encap:Local Loopback  \n          inet addr:127.0.0.1  Mask:255.0.0.0\n          UP LOOPBACK RUNNING  MTU:65536  Metric:1\n          RX packets:0 errors:0 dropped:0 overruns:0 frame:0\n          TX packets:0 errors:0 dropped:0 overruns:0 carrier:0\n          collisions:0 txqueuelen:1000 \n          RX bytes:0 (0.0 B)  TX bytes:0 (0.0 B)\n\n',
  );
  return 0;
};
