// `node --import ./test/support/swc-register.mjs src/main.ts`: see swc-hooks.mjs.
import * as nodeModule from 'node:module';
import * as hooks from './swc-hooks.mjs';

if (typeof nodeModule.registerHooks === 'function') nodeModule.registerHooks(hooks);
else nodeModule.register('./swc-hooks.mjs', import.meta.url);
