// What an experiment needs from the supervisor, as an interface, so the
// runner's tests can hand it a fake: inject a fault, recover one (or all),
// read the status. controlDriver implements it over the control endpoint
// (cli/control/client.ts).
import type { ChaosRequest, ChaosResult, SupervisorStatus } from '../../../shared/chaos/protocol.ts';
import { controlRequest } from '../../control/client.ts';

export interface ChaosDriver {
  inject(req: ChaosRequest): Promise<ChaosResult>;
  /** Undoes one fault, or every active fault when `id` is omitted. */
  recover(id?: string): Promise<void>;
  status(): Promise<SupervisorStatus>;
}

/** The driver of the `ksim up` running in `dataDir`. */
export function controlDriver(dataDir: string): ChaosDriver {
  return {
    inject: (req) => controlRequest<ChaosResult>(dataDir, 'POST', '/chaos', req),
    async recover(id) {
      await controlRequest<ChaosResult>(dataDir, 'POST', '/chaos', { action: 'recover', ...(id ? { faultId: id } : {}) });
    },
    status: () => controlRequest<SupervisorStatus>(dataDir, 'GET', '/status'),
  };
}
