import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { anchors, links, markdownFiles, ROOT } from '../helpers/markdown.js';

/**
 * Every relative link in the repository's Markdown resolves to a file (or folder) inside the
 * repository, and every #anchor to a heading of its target. Links to web addresses are not followed;
 * a relative link that leaves the repository (../shared/…) fails: a clone does not have it.
 */

/** The problem with one link of `file`, or undefined when it resolves. */
function brokenLink(file: string, target: string) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // http:, https:, mailto:
  const [path, hash] = target.split('#') as [string, string | undefined];
  const abs = path ? resolve(ROOT, dirname(file), decodeURIComponent(path)) : join(ROOT, file);
  const inside = relative(ROOT, abs);
  if (inside.startsWith('..')) return `${target}: points outside the repository`;
  if (!existsSync(abs)) return `${target}: no such file`;
  if (hash && abs.endsWith('.md') && statSync(abs).isFile() && !anchors(readFileSync(abs, 'utf8')).has(hash))
    return `${target}: no heading with the anchor #${hash} in ${inside}`;
  return undefined;
}

describe('Markdown links', () => {
  const files = markdownFiles();

  test('the scan finds the README, the security policy and the guides', () => {
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'SECURITY.md', 'CHANGELOG.md', 'docs/scaling.md']),
    );
  });

  test.each(files)('%s: every relative link resolves inside the repository', (file) => {
    const problems = links(readFileSync(join(ROOT, file), 'utf8'))
      .map((t) => brokenLink(file, t))
      .filter(Boolean);
    expect(problems).toEqual([]);
  });

  // The checker itself: each kind of broken link is caught, and good ones pass.
  test('the checker refuses links outside the repository, missing files and missing anchors', () => {
    expect(brokenLink('README.md', '../shared/spec/solar-data-service-v1.md')).toMatch(/outside/);
    expect(brokenLink('README.md', 'docs/nope.md')).toMatch(/no such file/);
    expect(brokenLink('README.md', 'SECURITY.md#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink('docs/scaling.md', '../README.md')).toBeUndefined();
    expect(brokenLink('README.md', 'https://example.com/x')).toBeUndefined();
  });

  test('links are read from prose only, and anchors follow GitHub', () => {
    const md =
      '# A `code` Title\n## Two words, punct!\n## Two words, punct!\n[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n';
    expect(links(md)).toEqual(['x.md']);
    expect([...anchors(md)]).toEqual(['a-code-title', 'two-words-punct', 'two-words-punct-1']);
  });
});
