// Types of scripts/check-import-cycles.mjs, for the tests that import it.

/** The project files `file` imports (absolute paths), read from its text. */
export function importsOf(file: string, text: string): string[];

/** The circles of an import graph: its strongly connected components with more than one file, or a file importing itself. */
export function findCycles(graph: Map<string, string[]>): string[][];
