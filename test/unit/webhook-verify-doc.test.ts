import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { newSecret, sign } from '../../src/modules/webhooks/signing.js';
import { codeBlocks } from '../helpers/markdown.js';

/** The verification helper of docs/changes.md, run as written against the gateway's own signatures. */
const dir = mkdtempSync(join(tmpdir(), 'sdg-verify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the documented verifySdgSignature accepts what the gateway signs and refuses the rest', async () => {
  const [block] = codeBlocks('docs/changes.md').filter(
    (b) => b.lang === 'js' && /verifySdgSignature/.test(b.text),
  );
  expect(block, 'the js block in docs/changes.md').toBeTruthy();
  const file = join(dir, 'verify.mjs');
  writeFileSync(file, block.text);
  const { verifySdgSignature } = (await import(pathToFileURL(file).href)) as {
    verifySdgSignature: (secret: string, header: string, body: string, tolerance?: number) => boolean;
  };
  const secret = newSecret();
  const body = JSON.stringify({ id: 'whd_1', type: 'parcel.updated', data: { x: 'ü' } });
  const now = Math.floor(Date.now() / 1000);
  expect(verifySdgSignature(secret, sign(secret, now, body), body)).toBe(true);
  expect(verifySdgSignature(secret, sign(secret, now, body), body.replace('1', '2'))).toBe(false);
  expect(verifySdgSignature(newSecret(), sign(secret, now, body), body)).toBe(false);
  // Too old: a replay.
  expect(verifySdgSignature(secret, sign(secret, now - 600, body), body)).toBe(false);
  expect(verifySdgSignature(secret, 't=abc,v1=00', body)).toBe(false);
  expect(verifySdgSignature(secret, '', body)).toBe(false);
});
