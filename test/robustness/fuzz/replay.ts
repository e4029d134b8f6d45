// Prints fuzzed request INDEX of run SEED and, given a URL (plain http) or a
// kubeconfig (https with its CA and client certificate), sends it and prints
// the answer: `node --import tsx test/robustness/fuzz/replay.ts SEED INDEX [URL|KUBECONFIG]`.
// The request is rebuilt from (seed, index) alone; the objects it aims at are
// those of the seed corpus (fuzz/corpus.ts), which the fuzz test stores first.
import http from 'node:http';
import https from 'node:https';
import { loadKubeconfig } from '../../../shared/client/kubeconfig.ts';
import { tlsFor, tlsMaterialOf, type ApiTarget } from '../../helpers/index.ts';
import { checkOutcome } from './check.ts';
import { generateRequest } from './generate.ts';
import { describeRequest } from './run.ts';
import { send } from './send.ts';

const [seedArg, indexArg, url] = process.argv.slice(2);
if (seedArg === undefined || indexArg === undefined) {
  process.stderr.write('usage: replay.ts SEED INDEX [URL|KUBECONFIG]\n');
  process.exit(2);
}
const req = generateRequest(Number(seedArg), Number(indexArg));
process.stdout.write(describeRequest(req) + '\n');
if (url) {
  let target: ApiTarget = { url };
  if (!/^https?:\/\//.test(url)) {
    const config = loadKubeconfig(url);
    target = { url: config.server, tls: tlsMaterialOf(config) };
  }
  const u = new URL(target.url);
  const { tls } = tlsFor(target);
  const agent = tls ? new https.Agent(tls) : new http.Agent();
  const port = Number(u.port || (tls ? 443 : 80));
  const out = await send({ host: u.hostname, port, agent, tls, timeoutMs: 20_000, streamMs: 4_000 }, req);
  process.stdout.write(
    `${JSON.stringify(out.kind === 'answer' ? { status: out.status, headers: out.headers, body: out.body.subarray(0, 2000).toString('utf8') } : out, null, 2)}\n`,
  );
  process.stdout.write(`problems: ${JSON.stringify(checkOutcome(req, out))}\n`);
  agent.destroy();
}
