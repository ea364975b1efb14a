#!/usr/bin/env node
// The `glossary` command. The sources are TypeScript, run through tsx as `npm start` runs them.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
