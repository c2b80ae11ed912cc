// `node --import ./test/support/swc-register.mjs src/main.ts`: see swc-hooks.mjs.
import { register } from 'node:module';

register('./swc-hooks.mjs', import.meta.url);
