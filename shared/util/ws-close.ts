// WebSocket close codes that may be sent. A peer that vanished is reported
// locally as 1006 (and 1005 for "no code", 1015 for a TLS failure); RFC 6455
// forbids sending those, and ws throws if asked to, so a proxy that forwards
// the code it got must map them first.

/** A code it is legal to send for a close that was `code` on the other side. */
export function sendableCloseCode(code: number | undefined): number {
  if (code === undefined || code === 1005) return 1000;
  // 1000-1003, 1007-1014 are defined and sendable; 3000-4999 are for applications.
  if ((code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999)) return code;
  // 1006 (abnormal), 1015 (TLS), 1004 (reserved) and anything out of range: the other side broke.
  return 1011;
}
