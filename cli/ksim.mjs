#!/usr/bin/env node
// The `ksim` command: hands over to cli/main.ts, loaded from a bundle kept
// current automatically (see bundle.mjs), or through tsx when it cannot be
// built. No build step either way.
import { loadMain } from './bundle.mjs';

const { main } = await loadMain();
await main(process.argv.slice(2));
