// `ksim history|diff|blame|trace KIND/NAME`: reads the history API
// (history.ksim.io, shared/api/history-types.ts) with a kubeconfig, as
// kubectl does: --kubeconfig, else $KUBECONFIG, else the admin kubeconfig of
// the cluster in --data-dir (else $KSIM_DATA_DIR, else .ksim). Prints tables
// and trees, or the API's object with -o json|yaml.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { FieldBlame, RevisionDiff, RevisionList, Trace } from '../../shared/api/history-types.ts';
import { StatusError } from '../../shared/api/errors.ts';
import { KubeClient } from '../../shared/client/kube-client.ts';
import { splitArgs } from '../../shared/cli/split-args.ts';
import { blameTable, diffText, historyTable, traceText } from './render.ts';
import { historyPath, resolveTarget, type Target } from './target.ts';

const FLAGS = {
  kubeconfig: { value: true },
  'data-dir': { value: true },
  namespace: { value: true, short: 'n' },
  output: { value: true, short: 'o' },
  revision: { value: true },
  help: { value: false, short: 'h' },
} as const;

export type HistoryCommand = 'history' | 'diff' | 'blame' | 'trace';

const USAGE: Record<HistoryCommand, string> = {
  history:
    'ksim history KIND/NAME [-n NS]            every revision: when, who (user, manager, verb), why, what changed\n' +
    '  ksim history KIND/NAME --revision R       the object as it was at revision R (also once deleted), as YAML',
  diff: 'ksim diff KIND/NAME R1 R2 [-n NS]          the fields that changed from revision R1 to R2 (R2 alone: from the one before)',
  blame: 'ksim blame KIND/NAME [--revision R]        each field with the revision and writer that last set it',
  trace:
    'ksim trace KIND/NAME [--revision R]        the writes a revision caused, across components, as a tree (default: the newest user write)',
};

/** The usage text of the history commands. */
export const HISTORY_USAGE = `Usage:
${Object.values(USAGE)
  .map((u) => `  ${u}`)
  .join('\n')}

Flags: -n/--namespace NS, -o/--output json|yaml, --kubeconfig FILE (else $KUBECONFIG,
else DIR/kubeconfig of --data-dir DIR, else $KSIM_DATA_DIR, else .ksim).
`;

class UsageError extends Error {}

/** The kubeconfig file the commands use (see the file comment). */
export function kubeconfigFile(flags: Map<string, string>, env: NodeJS.ProcessEnv = process.env): string {
  const explicit = flags.get('kubeconfig') ?? env.KUBECONFIG?.split(path.delimiter)[0];
  if (explicit) return explicit;
  return path.join(path.resolve(flags.get('data-dir') || env.KSIM_DATA_DIR || '.ksim'), 'kubeconfig');
}

function revisionArg(value: string | undefined, what: string): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,15}$/.test(value)) throw new UsageError(`${what}: "${value}" is not a revision (a resourceVersion, such as 1234)`);
  return value;
}

async function read(client: KubeClient, command: HistoryCommand, target: Target, rest: string[], revision: string | undefined) {
  switch (command) {
    case 'history': {
      if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
      if (revision !== undefined) return client.request('GET', historyPath(target, 'object'), { query: { revision } });
      const items: RevisionList['items'] = [];
      let list: RevisionList | undefined;
      let token: string | undefined;
      do {
        list = await client.request<RevisionList>('GET', historyPath(target), { query: { changes: true, continue: token } });
        items.push(...list.items);
        token = list.metadata.continue;
      } while (token);
      return { ...list, metadata: {}, items };
    }
    case 'diff': {
      if (rest.length > 2) throw new UsageError(`unexpected argument "${rest[2]}"`);
      const [a, b] = rest.map((r, i) => revisionArg(r, i === 0 ? 'R1' : 'R2'));
      const query = b === undefined ? { to: a } : { from: a, to: b };
      return client.request<RevisionDiff>('GET', historyPath(target, 'diff'), { query });
    }
    case 'blame':
    case 'trace':
      if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
      return client.request<FieldBlame | Trace>('GET', historyPath(target, command), { query: { revision } });
  }
}

function render(command: HistoryCommand, answer: unknown): string {
  switch (command) {
    case 'history':
      return historyTable(answer as RevisionList);
    case 'diff':
      return diffText(answer as RevisionDiff);
    case 'blame':
      return blameTable(answer as FieldBlame);
    case 'trace':
      return traceText(answer as Trace);
  }
}

/** Runs `ksim <command> ARGS...`; exits 2 on a usage error and 1 when the apiserver refuses. */
export async function historyMain(command: HistoryCommand, argv: string[]): Promise<void> {
  try {
    const args = splitArgs(argv, FLAGS, (m) => new UsageError(m));
    if (args.flags.get('help') === 'true') {
      process.stdout.write(HISTORY_USAGE);
      return;
    }
    const output = args.flags.get('output');
    if (output !== undefined && output !== 'json' && output !== 'yaml')
      throw new UsageError(`flag --output: "${output}" is not json or yaml`);
    const revision = revisionArg(args.flags.get('revision'), 'flag --revision');
    if (revision !== undefined && command === 'diff') throw new UsageError(`flag --revision: ksim ${command} takes revisions as arguments`);
    if (args.positional.length === 0) throw new UsageError('expected KIND/NAME, e.g. deployment/web');
    const file = kubeconfigFile(args.flags);
    if (!fs.existsSync(file))
      throw new Error(`no kubeconfig at ${file}: start a cluster with ksim up, or name one with --kubeconfig or --data-dir`);
    const client = KubeClient.fromKubeconfig(file, { userAgent: `ksim-${command}` });
    try {
      const namespace = args.flags.get('namespace') || client.config.namespace || 'default';
      const { target, rest } = await resolveTarget(client, args.positional, namespace);
      const answer = await read(client, command, target, rest, revision);
      if (output === 'json') process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
      else if (output === 'yaml') process.stdout.write(YAML.stringify(answer));
      else if (command === 'history' && revision !== undefined) process.stdout.write(YAML.stringify(answer));
      else process.stdout.write(render(command, answer));
    } finally {
      client.close();
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`ksim ${command}: ${err.message}\n\n${HISTORY_USAGE}`);
      process.exit(2);
    }
    const message = err instanceof StatusError ? `Error from server (${err.reason}): ${err.message}` : (err as Error).message;
    process.stderr.write(`ksim ${command}: ${message}\n`);
    process.exit(1);
  }
}
