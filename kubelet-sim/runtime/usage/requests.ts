// The CPU that requests to each Pod's simulated servers cost (by Pod IP), so
// that the usage model can charge it to the container serving them: the HPA
// walkthrough's load generator drives php-apache's CPU up. A request's cost
// is divided by --speed where it is counted: a load generator's `sleep 0.01`
// is 10 times shorter at speed 10, and the CPU it causes stays what it would
// be at speed 1.
import type { Listener } from '../images/network.ts';

/** CPU (core-seconds) charged per Pod IP by the requests its servers answered, since this process started. */
export class RequestCounter {
  private readonly counts = new Map<string, number>();

  /** A request that costs `cpuSeconds` reached a server of the Pod at `ip`. */
  count(ip: string, cpuSeconds: number): void {
    this.counts.set(ip, (this.counts.get(ip) ?? 0) + cpuSeconds);
  }

  /** Core-seconds charged so far to the Pod at `ip`. */
  total(ip: string): number {
    return this.counts.get(ip) ?? 0;
  }

  /** Forgets an address (its Pod is gone; the next Pod with it starts from zero). */
  forget(ip: string): void {
    this.counts.delete(ip);
  }

  /** A listener that charges `cpuSeconds` for each HTTP request or TCP exchange before `l` answers it. */
  counting(ip: string, l: Listener, cpuSeconds: number): Listener {
    return {
      ...(l.http
        ? {
            http: (req) => {
              this.count(ip, cpuSeconds);
              return l.http!(req);
            },
          }
        : {}),
      ...(l.tcp
        ? {
            tcp: (data) => {
              this.count(ip, cpuSeconds);
              return l.tcp!(data);
            },
          }
        : {}),
    };
  }
}

/** The counter of this process (its simulated network is one too). */
export const PROCESS_REQUESTS = new RequestCounter();
