import { runCli } from './cli.js';

// exitCode rather than process.exit(): lets stdout drain when it is a pipe.
process.exitCode = await runCli(process.argv.slice(2));
