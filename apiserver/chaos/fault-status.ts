// The answer an injected error gets: the metav1.Status kube-apiserver sends
// for that code in the situation that causes it on a real cluster, so that
// client-go (kubectl, controllers) reacts as it would there. client-go
// retries a 429 or any 5xx only when the answer has a Retry-After header
// (rest/with_retry.go checkWait, up to 10 times, sleeping that many
// seconds); everything else fails at once with the Status's message.
//   500 InternalError  apierrors.NewInternalError: no Retry-After, kubectl fails.
//   429 TooManyRequests what priority and fairness answers a request it sheds,
//                       Retry-After: 1 (APF's first value): kubectl retries.
//                       APF writes the same words as plain text; a Status
//                       with them is what every ksim error is (and client-go
//                       retries both the same way).
//   409 Conflict       the optimistic-lock conflict of apierrors.NewConflict.
//   504 Timeout        what the request-timeout filter answers, no Retry-After.
import { conflict, StatusError } from '../../shared/api/errors.ts';
import type { RequestTarget } from './match.ts';

/** The codes a fault can inject. */
export const INJECTABLE_CODES = [500, 429, 409, 504] as const;
export type InjectableCode = (typeof INJECTABLE_CODES)[number];

/** APF's Retry-After for a request it sheds (its first value, before it backs off). */
export const TOO_MANY_REQUESTS_RETRY_AFTER_SECONDS = 1;

/** What refuses a request that fault `faultId` picked, as kube words it. */
export function injectedError(
  code: InjectableCode,
  faultId: string,
  target: RequestTarget & { name?: string; group?: string },
): StatusError {
  switch (code) {
    case 500: {
      const cause = `ksim chaos: fault "${faultId}" injected this error`;
      return new StatusError(500, 'InternalError', `Internal error occurred: ${cause}`, { causes: [{ message: cause }] });
    }
    case 429:
      return new StatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', {
        retryAfterSeconds: TOO_MANY_REQUESTS_RETRY_AFTER_SECONDS,
      });
    case 409:
      return conflict({ group: target.group ?? '', resource: target.resource }, target.name ?? '');
    case 504:
      return new StatusError(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {});
  }
}
