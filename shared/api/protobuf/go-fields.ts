// What Go's encoding/json knows about each API struct and the schema does
// not: field order, pointer or not, omitempty / omitzero (go-fields.json,
// derived from k8s.io/api by scripts/derive-go-fields.mjs). Decoding protobuf into
// the JSON kube itself would write depends on it: go-to-protobuf writes every
// non-pointer field, so only these flags tell `replicas: 0` (a pointer, kept)
// from `generation: 0` (omitempty, dropped).
import { readFileSync } from 'node:fs';

/** How Go writes one JSON property of a struct. */
export interface GoField {
  /** JSON name. */
  name: string;
  /** A pointer (or nil-able) Go field: absent means nil. */
  pointer: boolean;
  omitempty: boolean;
  omitzero: boolean;
}

interface GoFieldsFile {
  messages: Record<string, Record<string, string>>;
}

let byMessage: Map<string, GoField[]> | undefined;

/** The JSON properties of the Go struct behind a protobuf message, in Go field order; undefined when not known. */
export function goFieldsOf(message: string): readonly GoField[] | undefined {
  if (!byMessage) {
    const file = JSON.parse(readFileSync(new URL('./go-fields.json', import.meta.url), 'utf8')) as GoFieldsFile;
    byMessage = new Map();
    for (const [m, fields] of Object.entries(file.messages)) {
      byMessage.set(
        m,
        Object.entries(fields).map(([name, flags]) => ({
          name,
          pointer: flags.includes('p'),
          omitempty: flags.includes('o'),
          omitzero: flags.includes('z'),
        })),
      );
    }
  }
  return byMessage.get(message);
}
