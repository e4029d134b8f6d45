// A component's side of the supervisor's private control channel (the IPC
// channel `ksim up` opens to each child): the supervisor sends a
// ComponentRequest, the op's handler runs, and a ComponentReply goes back.
// Each component registers the ops it serves (the apiserver its request
// faults, kubelet-sim its node and container faults); every component serves
// 'info' and 'clock.skew'. Each op is logged, so a fault shows in the
// component's own log next to its reaction. A component started by hand has
// no channel and serves nothing here.
import type { Logger } from 'pino';
import { clockSkew, setClockSkew } from '../clock/clock.ts';
import type { ComponentInfo, ComponentReply, ComponentRequest } from './protocol.ts';

export type ControlHandler = (args: Record<string, unknown>) => unknown;

const handlers = new Map<string, ControlHandler>();
const infoProviders: (() => Partial<ComponentInfo>)[] = [];

/** Serves `op` on the control channel (the last registration of an op wins). */
export function registerControl(op: string, handler: ControlHandler): void {
  handlers.set(op, handler);
}

/** Adds to what 'info' answers (the leader elector says whether it leads). */
export function registerInfo(provider: () => Partial<ComponentInfo>): void {
  infoProviders.push(provider);
}

function info(): ComponentInfo {
  let out: ComponentInfo = { pid: process.pid, clockSkewMs: clockSkew() };
  for (const p of infoProviders) out = { ...out, ...p() };
  return out;
}

registerControl('info', () => info());
registerControl('clock.skew', (args) => {
  const offsetMs = Number(args.offsetMs);
  if (!Number.isFinite(offsetMs)) throw new Error('clock.skew: offsetMs must be a number');
  setClockSkew(offsetMs);
  return { offsetMs };
});

let serving = false;

/** Answers the supervisor's requests on this process's IPC channel, if it has one; the channel never keeps the process alive. */
export function serveControl(log?: Logger): void {
  if (serving || !process.send || !process.channel) return;
  serving = true;
  process.channel.unref();
  process.on('message', (m: Partial<ComponentRequest> | null) => {
    if (m?.type !== 'ksim-control' || typeof m.id !== 'number' || typeof m.op !== 'string') return;
    void answer(m as ComponentRequest, log);
  });
}

async function answer(req: ComponentRequest, log: Logger | undefined): Promise<void> {
  const handler = handlers.get(req.op);
  let reply: ComponentReply;
  if (!handler) reply = { type: 'ksim-control-reply', id: req.id, ok: false, error: `this component does not serve ${req.op}` };
  else {
    try {
      const result = await handler(req.args ?? {});
      reply = { type: 'ksim-control-reply', id: req.id, ok: true, result };
      if (req.op !== 'info') log?.warn({ chaos: req.op, args: req.args }, `chaos: ${req.op}`);
    } catch (err) {
      reply = { type: 'ksim-control-reply', id: req.id, ok: false, error: (err as Error).message };
      log?.warn({ chaos: req.op, args: req.args, err: (err as Error).message }, `chaos: ${req.op} refused`);
    }
  }
  // The supervisor may be gone (its children then exit on their own): a failed send is not this process's problem.
  if (process.connected) process.send?.(reply, undefined, undefined, () => undefined);
}
