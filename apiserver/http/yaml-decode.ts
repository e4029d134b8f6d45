// YAML request bodies to plain values, with go-yaml's limits and errors,
// which the `yaml` package does not give by itself: nesting past 10,000
// levels ("exceeded max depth of 10000", checked on the text before parsing),
// an alias inside its own anchor ("anchor 'a' value contains itself": the
// package would build a circular object), an alias of no anchor, and alias
// expansion past go-yaml's allowed ratio ("document contains excessive
// aliasing", the billion-laughs guard), counted without expanding anything.
import YAML, { isAlias, isMap, isPair, isScalar, isSeq, type Document } from 'yaml';
import { yamlNestingError } from './nesting.ts';

/** A YAML body go-yaml would refuse; the message is go-yaml's, "yaml: " included. */
export class YamlDecodeError extends Error {
  constructor(message: string) {
    super(`yaml: ${message}`);
    this.name = 'YamlDecodeError';
  }
}

/** go-yaml's allowedAliasRatio: 99% of decodes may come from aliases in small documents, 10% in huge ones. */
function allowedAliasRatio(decodes: number): number {
  const low = 400_000;
  const high = 4_000_000;
  if (decodes <= low) return 0.99;
  if (decodes >= high) return 0.1;
  return 0.99 - 0.89 * ((decodes - low) / (high - low));
}

/**
 * Walks the document in go-yaml's decode order, counting decode operations
 * as go-yaml's decoder does (every node, keys included; an alias costs its
 * target's whole expansion, all of it alias-driven), and fails as go-yaml
 * fails. Each node's expansion is computed once, when the walk leaves it:
 * anchors come before their aliases, so an alias whose target is not done
 * yet is inside it.
 */
function checkAliases(doc: Document.Parsed): void {
  const expansion = new Map<unknown, number>();
  const open = new Set<unknown>();
  let decodes = 1; // the document node
  let aliased = 0;
  const walk = (node: unknown): number => {
    if (node === null || node === undefined) return 0;
    decodes++;
    if (isAlias(node)) {
      const target = node.resolve(doc);
      if (target === undefined) throw new YamlDecodeError(`unknown anchor '${node.source}' referenced`);
      if (open.has(target)) throw new YamlDecodeError(`anchor '${node.source}' value contains itself`);
      const size = expansion.get(target) ?? 1;
      decodes += size;
      aliased += size;
      // Within one alias both counts grow together, so checking after it is as early as go-yaml's check.
      if (aliased > 100 && decodes > 1000 && aliased / decodes > allowedAliasRatio(decodes))
        throw new YamlDecodeError('document contains excessive aliasing');
      return 1 + size;
    }
    let size = 1;
    if (isMap(node) || isSeq(node)) {
      open.add(node);
      for (const item of node.items as unknown[]) {
        if (isPair(item)) size += walk(item.key) + walk(item.value);
        else size += walk(item);
      }
      open.delete(node);
    }
    if (isMap(node) || isSeq(node) || isScalar(node)) expansion.set(node, size);
    return size;
  };
  walk(doc.contents);
}

/**
 * Parses one YAML document into plain JSON-like values; throws
 * YamlDecodeError for what go-yaml refuses, and for what the `yaml` package
 * cannot parse (with its message).
 */
export function decodeYaml(text: string): unknown {
  const deep = yamlNestingError(text);
  if (deep) throw new YamlDecodeError(deep);
  let doc: Document.Parsed;
  try {
    doc = YAML.parseDocument(text);
  } catch (err) {
    throw new YamlDecodeError((err as Error).message.split('\n')[0]);
  }
  if (doc.errors.length) throw new YamlDecodeError(doc.errors[0].message.split('\n')[0]);
  checkAliases(doc);
  try {
    return doc.toJS({ maxAliasCount: -1 });
  } catch (err) {
    throw new YamlDecodeError((err as Error).message.split('\n')[0]);
  }
}
