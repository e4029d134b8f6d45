// How long an issued certificate lives, as kube's signer and its
// PermissiveSigningPolicy decide: the requested spec.expirationSeconds, at
// most --cluster-signing-duration and at least 10 minutes (twice the
// backdate); valid from 5 minutes ago; a certificate of 8 hours or more
// loses those 5 minutes at its end; never past the CA's own expiry.
const MINUTE_MS = 60_000;
/** kube's Backdate. */
export const BACKDATE_MS = 5 * MINUTE_MS;
/** kube's Short: below it the end is not moved back by the backdate. */
export const SHORT_MS = 8 * 60 * MINUTE_MS;
/** The smallest duration the signer honours. */
export const MIN_DURATION_MS = 10 * MINUTE_MS;
/** --cluster-signing-duration's default, 8760h. */
export const DEFAULT_SIGNING_DURATION_MS = 8760 * 60 * MINUTE_MS;

/** kube's signer.duration. */
export function certificateDuration(expirationSeconds: number | undefined, maxMs: number): number {
  if (expirationSeconds === undefined || expirationSeconds === null) return maxMs;
  const requested = expirationSeconds * 1000;
  if (requested > maxMs) return maxMs;
  if (requested < MIN_DURATION_MS) return MIN_DURATION_MS;
  return requested;
}

/** Go's time.Time %v for a UTC time: `2027-01-01 00:00:00 +0000 UTC`. */
export function goTime(d: Date): string {
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}

/** The validity window, or kube's error when the CA can no longer sign. */
export function validity(nowMs: number, ttlMs: number, caNotAfter: Date): { notBefore: Date; notAfter: Date } {
  const notBefore = nowMs - BACKDATE_MS;
  let notAfter = ttlMs < SHORT_MS ? nowMs + ttlMs : nowMs + ttlMs - BACKDATE_MS;
  const caEnd = caNotAfter.getTime();
  if (notAfter >= caEnd) notAfter = caEnd;
  if (notBefore >= caEnd) throw new Error(`the signer has expired: NotAfter=${goTime(caNotAfter)}`);
  if (nowMs >= caEnd) throw new Error(`refusing to sign a certificate that expired in the past: NotAfter=${goTime(caNotAfter)}`);
  return { notBefore: new Date(notBefore), notAfter: new Date(notAfter) };
}
