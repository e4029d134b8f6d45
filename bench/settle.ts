// Brings a freshly started apiserver to its steady state before a measured
// phase. It builds its OpenAPI documents once, a few seconds after start
// (about 0.3 s of work in one piece), so as not to delay its first clients;
// a benchmark that measures from the first seconds would count that pause
// as latency of the operations it measures. Asking for the documents now,
// as kubectl's first run does, makes the apiserver build them during the
// warm-up instead (they are built once, later requests are served cached).
import { api, type ApiTarget } from '../test/helpers/index.ts';

const OPENAPI: { path: string; accept: string }[] = [
  { path: '/openapi/v3', accept: 'application/json' },
  { path: '/openapi/v2', accept: 'application/json' },
  { path: '/openapi/v2', accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' },
];

/** Has the apiserver do its deferred one-off work now (asked as its admin). */
export async function settleApiserver(server: ApiTarget): Promise<void> {
  const c = api(server);
  try {
    for (const { path, accept } of OPENAPI) await c.request('GET', path, undefined, { accept });
  } finally {
    c.close();
  }
}
