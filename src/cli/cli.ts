import { runCli } from './main.js';

runCli(process.argv.slice(2), {
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(s.startsWith('\r') ? s : `${s}\n`),
  tty: process.stderr.isTTY,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    // parseArgs rejects unknown flags; say how to get help.
    process.stderr.write(`sdg: ${(err as Error).message}\nRun sdg --help for usage.\n`);
    process.exitCode = 2;
  },
);
