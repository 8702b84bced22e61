import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { COMMAND_FLAGS, runCli } from '../../src/cli/main.js';
import { loadConfig } from '../../src/config.js';
import { DEMO_USERS } from '../../src/seed/demo.js';
import { ROOT } from '../helpers/markdown.js';

/**
 * Issue 42's paper cuts in the guides, held against the code they describe: the demo users'
 * e-mails, the README's PORT and HOST, and the CLI guide's command table.
 */
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The text of a section, from its heading to the next heading of the same or a higher level. */
function section(source: string, heading: string): string {
  const start = source.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const level = heading.indexOf(' ');
  const rest = source.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}

describe('docs/getting-started.md', () => {
  const guide = read('docs/getting-started.md');
  const start = section(guide, '## Start the demo');

  test("the demo table gives each demo user's e-mail, as the seed creates it", () => {
    expect(DEMO_USERS).toHaveLength(5);
    for (const [handle, email] of DEMO_USERS)
      expect(start, handle).toMatch(
        new RegExp(`^\\| ${handle} +\\| \`${email.replaceAll('.', '\\.')}\` +\\|`, 'm'),
      );
  });

  test('says to leave the server running for the examples, how to stop it, and to stop it before sdg', () => {
    expect(start).toMatch(/Leave the server running/);
    expect(start).toMatch(/Ctrl-C stops it/);
    expect(start).toMatch(/Stop it before you run the `sdg` command/);
    expect(section(guide, '## Your own users and keys')).toMatch(/\*\*stop the server first\*\*/);
  });

  test('names the one command that recovers lost demo keys', () => {
    expect(start).toMatch(/\*\*Lost the keys\?\*\*/);
    expect(start).toContain('npx sdg seed --demo --keys');
  });
});

describe('README.md Quick start', () => {
  test('names PORT and HOST, which the configuration reads', () => {
    const quick = section(read('README.md'), '## Quick start');
    expect(quick).toMatch(/`PORT` and `HOST`/);
    expect(quick).toContain('PORT=4001 npm start');
    expect(loadConfig({ PORT: '4001', HOST: '0.0.0.0' })).toMatchObject({ port: 4001, host: '0.0.0.0' });
    expect(loadConfig({})).toMatchObject({ port: 4000, host: '127.0.0.1' });
    expect(quick).toContain('http://127.0.0.1:4000');
  });
});

describe("docs/cli.md's command table", () => {
  const rows = read('docs/cli.md')
    .split('\n')
    .filter((l) => l.startsWith('| `sdg '));

  test('has a row for every command, with every flag the command takes', () => {
    for (const command of Object.keys(COMMANDS)) {
      const mine = rows.filter((r) => r.startsWith(`| \`sdg ${command} `));
      expect(mine.length, command).toBeGreaterThan(0);
      for (const flag of COMMAND_FLAGS[command] ?? [])
        expect(mine.join('\n'), `${command} --${flag}`).toContain(`--${flag}`);
    }
    expect(rows.join('\n')).toContain('[--citus]');
  });

  test("every flag in the table is one sdg --help (or the command's own --help) shows too", async () => {
    const help = async (...argv: string[]) => {
      const out: string[] = [];
      expect(await runCli([...argv, '--help'], { out: (s) => out.push(s), err: () => {} })).toBe(0);
      return out.join('\n');
    };
    const general = await help();
    let flags = 0;
    for (const row of rows) {
      const call = row.split(' | ')[0];
      const command = Object.keys(COMMANDS).find((c) => call.startsWith(`| \`sdg ${c} `));
      expect(command, row).toBeDefined();
      const shown = `${general}\n${await help(...command!.split(' '))}`;
      for (const flag of call.match(/--[a-z-]+/g) ?? []) {
        expect(shown, `${command} ${flag}`).toContain(flag);
        flags++;
      }
    }
    expect(flags).toBeGreaterThan(20);
    for (const command of Object.keys(COMMAND_FLAGS))
      for (const flag of COMMAND_FLAGS[command])
        expect(general, `${command} --${flag}`).toContain(`--${flag}`);
  });
});
