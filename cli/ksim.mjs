#!/usr/bin/env node
// The `ksim` command. Registers tsx so the TypeScript sources run as they
// are (no build step), then hands over to cli/main.ts.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
await main(process.argv.slice(2));
