// The string formats kube's CRD validation checks (kube-openapi's strfmt
// registry, as apiextensions restricts it): a value of another format name
// passes, as it does in kube.
import { isIP } from 'node:net';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const HOSTNAME = /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/;
const EMAIL = /^[^@\s]+@[^@\s]+$/;
const MAC = /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/;
const BYTE = /^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DURATION = /^([+-]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h|d|w))+$/;

function validDate(v: string): boolean {
  if (!DATE.test(v.slice(0, 10))) return false;
  const d = new Date(`${v.slice(0, 10)}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v.slice(0, 10);
}

function validCIDR(v: string): boolean {
  const [ip, bits, extra] = v.split('/');
  if (extra !== undefined || bits === undefined || !/^\d+$/.test(bits)) return false;
  const family = isIP(ip);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}

const CHECKS: Record<string, (v: string) => boolean> = {
  date: (v) => v.length === 10 && validDate(v),
  'date-time': (v) => DATE_TIME.test(v) && validDate(v),
  datetime: (v) => DATE_TIME.test(v) && validDate(v),
  uuid: (v) => UUID.test(v),
  uuid3: (v) => UUID.test(v),
  uuid4: (v) => UUID.test(v),
  uuid5: (v) => UUID.test(v),
  hostname: (v) => v.length <= 255 && HOSTNAME.test(v),
  email: (v) => EMAIL.test(v),
  ipv4: (v) => isIP(v) === 4,
  ipv6: (v) => isIP(v) === 6,
  cidr: validCIDR,
  mac: (v) => MAC.test(v),
  byte: (v) => BYTE.test(v),
  duration: (v) => DURATION.test(v),
};

/** Whether `v` is a valid value of string format `format` (unknown formats accept anything). */
export function checkFormat(format: string, v: string): boolean {
  const check = CHECKS[format];
  return check ? check(v) : true;
}
