// `ksim step`: step-through of the controller-manager's reconciliation and
// the scheduler's attempts, through the step-through endpoints on each
// one's own port (shared/controller/stepper-routes.ts; found by step-client.ts):
//   ksim step show [CONTROLLER]      each controller: paused?, the items held, the last items with their notes
//   ksim step pause CONTROLLER|all   hold every later work item
//   ksim step next CONTROLLER        let the oldest held item through; print what it saw and decided
//   ksim step resume CONTROLLER|all  let everything through and stop holding
// With several replicas, the one that runs controllers (the leader) is used.
import path from 'node:path';
import type { ControllerSteps, ItemRecord } from '../shared/controller/stepper.ts';
import { splitArgs } from '../shared/cli/split-args.ts';
import { stepAction, stepEndpoints, type StepAction } from './step-client.ts';
import { timeOfDay } from './time-of-day.ts';

export const STEP_USAGE = `Usage:
  ksim step show [CONTROLLER]       each controller: paused?, the items held, the last items with their notes
  ksim step pause CONTROLLER|all    hold every later work item of the controller at its gate
  ksim step next CONTROLLER         let the oldest held item through; print what it saw and decided
  ksim step resume CONTROLLER|all   let everything through and stop holding

Controllers are the controller-manager's (deployment, replicaset, job, ...) and the scheduler.
Flags: --data-dir DIR (else $KSIM_DATA_DIR, else .ksim), -o json.
`;

class UsageError extends Error {}

const FLAGS = { 'data-dir': { value: true }, output: { value: true, short: 'o' }, help: { value: false, short: 'h' } } as const;

/** An item as lines: key, triggers, state and timing, then each note. */
export function itemText(i: ItemRecord): string {
  const took = i.startedAt !== undefined && i.endedAt !== undefined ? ` in ${i.endedAt - i.startedAt} ms` : '';
  let out = `#${i.id} ${i.controller} ${i.key} ${i.state}${took}${i.triggers.length ? ` (queued by ${i.triggers.join(', ')})` : ''} at ${timeOfDay(i.takenAt)}\n`;
  for (const n of i.notes) for (const [k, v] of Object.entries(n)) out += `    ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}\n`;
  if (i.error) out += `    error: ${i.error}\n`;
  if (i.requeueAfterMs !== undefined) out += `    requeue after: ${i.requeueAfterMs} ms\n`;
  return out;
}

function showText(steps: ControllerSteps[], detailed: boolean): string {
  let out = '';
  for (const s of steps) {
    out += `${s.controller}: ${s.paused ? 'PAUSED' : 'running'}, ${s.waiting.length} held\n`;
    if (!detailed) continue;
    for (const w of s.waiting) out += `  held: ${w.key}${w.triggers.length ? ` (queued by ${w.triggers.join(', ')})` : ''}\n`;
    for (const r of s.recent.slice(0, 10)) out += itemText(r).replace(/^/gm, '  ');
  }
  return out;
}

/** Runs `ksim step ARGS`. */
export async function stepMain(argv: string[]): Promise<void> {
  try {
    const args = splitArgs(argv, FLAGS, (m) => new UsageError(m));
    if (args.flags.get('help') === 'true') return void process.stdout.write(STEP_USAGE);
    const [action, controller, ...extra] = args.positional;
    if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
    if (!['show', 'pause', 'next', 'resume'].includes(action ?? ''))
      throw new UsageError(action ? `unknown action "${action}"` : 'an action is required');
    if (action !== 'show' && !controller) throw new UsageError(`ksim step ${action} needs a controller (or all)`);
    if (action === 'next' && controller === 'all') throw new UsageError('ksim step next takes one controller');
    const json = args.flags.get('output') === 'json';
    if (args.flags.has('output') && !json) throw new UsageError(`flag --output: "${args.flags.get('output')}" is not json`);
    const dataDir = path.resolve(args.flags.get('data-dir') || process.env.KSIM_DATA_DIR || '.ksim');
    const r = await stepAction(await stepEndpoints(dataDir), action as StepAction, controller);
    if (r.status !== 200) throw new Error(String(r.body.error ?? `HTTP ${r.status}`));
    if (json) return void process.stdout.write(`${JSON.stringify(r.body, null, 2)}\n`);
    if (action === 'next') process.stdout.write(itemText(r.body.item as ItemRecord));
    else process.stdout.write(showText(r.body.controllers as ControllerSteps[], action === 'show'));
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`ksim step: ${err.message}\n\n${STEP_USAGE}`);
      process.exit(2);
    }
    process.stderr.write(`ksim step: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
