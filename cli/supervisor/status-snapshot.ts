// What GET /status answers: every component with its pid, state, start
// time, restarts, endpoint, leader status (asked now, briefly) and clock
// skew, and the faults in effect.
import type { ComponentStatus, SupervisorStatus } from '../../shared/chaos/protocol.ts';
import type { FaultContext } from './context.ts';
import { leaderStates } from './leaders.ts';

/** The supervisor's view now. */
export async function statusSnapshot(ctx: FaultContext, server: string): Promise<SupervisorStatus> {
  const { supervisor, registry } = ctx;
  const leaders = await leaderStates(supervisor.children, ctx.client);
  const skew = new Map(registry.entriesWhere((e) => e.skewMs !== undefined).map((e) => [e.on, e.skewMs!]));
  const components = supervisor.children.map((c): ComponentStatus => {
    const s = c.state;
    return {
      name: c.name,
      pid: s.pid,
      state: s.state,
      ...(s.startedAt && c.running ? { startedAt: s.startedAt } : {}),
      restarts: s.restarts ?? 0,
      endpoint: s.endpoint,
      ...(leaders.has(c.name) ? { leader: leaders.get(c.name) } : {}),
      ...(s.exitCode !== undefined ? { exitCode: s.exitCode } : {}),
      ...(s.signal !== undefined ? { signal: s.signal } : {}),
      ...(skew.get(c.name) ? { clockSkewMs: skew.get(c.name) } : {}),
    };
  });
  return { supervisorPid: process.pid, server, dataDir: ctx.dataDir, components, faults: registry.list() };
}
