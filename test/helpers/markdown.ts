import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Reading the repository's Markdown for the docs tests: fenced code blocks (the examples) and links.
 *
 * Example markers, in a fence's info string after the language (GitHub shows none of them):
 *   ```sh                 every curl in the block must answer 2xx (and a GraphQL body without errors)
 *   ```sh expect=404      every curl in the block must answer 404; `expect=404:NOT_FOUND` also checks
 *                         the error code ({"error":{"code"}} or a GraphQL errors[0].extensions.code)
 *   ```graphql            run on /graphql as alice; must answer without errors
 *   ```graphql expect=VALIDATION_FAILED   must fail with that code
 *   ```json variables     (right after a graphql block) its variables; "$PF"-style strings are filled in
 *   as=vera               run as another demo user (sh: $KEY is theirs; graphql: their key)
 *   skip=<reason>         not run; the reason is required, and the test lists every skip
 *   setup                 (one sh block, in docs/getting-started.md) sets ORG, PF, PROJECT, CONTACT and
 *                         PARCEL; the runner runs it first and gives its values to every other example
 */

export const ROOT = join(import.meta.dirname, '..', '..');
const IGNORED = new Set(['node_modules', 'dist', '.data', '.git', 'test-results', 'raw']);

/** Every Markdown file of the repository, relative to its root, outside dependencies and build output. */
export function markdownFiles(dir = ROOT): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (IGNORED.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...markdownFiles(p));
    else if (e.name.endsWith('.md')) out.push(relative(ROOT, p));
  }
  return out.sort();
}

/** The files whose examples run: the README and the guides. New guides in docs/ join by being there. */
export const exampleFiles = () =>
  markdownFiles().filter((f) => f === 'README.md' || /^docs\/[^/]+\.md$/.test(f));

export interface Block {
  file: string;
  line: number;
  lang: string;
  /** Marker words after the language: `expect`, `as`, `skip`, `variables`. */
  markers: Record<string, string>;
  text: string;
}

export function codeBlocks(file: string, source = readFileSync(join(ROOT, file), 'utf8')): Block[] {
  const blocks: Block[] = [];
  const lines = source.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang, rest] = open;
    const markers: Record<string, string> = {};
    for (const word of rest.split(/\s+/).filter(Boolean)) {
      const eq = word.indexOf('=');
      markers[eq < 0 ? word : word.slice(0, eq)] = eq < 0 ? '' : word.slice(eq + 1);
    }
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].trimStart().startsWith(fence)) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
      j++;
    }
    blocks.push({ file, line: i + 1, lang, markers, text: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** The file without its fenced code blocks and HTML comments. */
const withoutFences = (source: string) =>
  source.replace(/^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\s*\2[^\n]*$/gm, '').replace(/<!--[\s\S]*?-->/g, '');

/** Text outside fenced blocks and inline code, where links count. */
const prose = (source: string) => withoutFences(source).replace(/(`+)[\s\S]*?\1/g, '');

/** Link targets in a Markdown file: [text](target), [ref]: target, and href="target". */
export function links(source: string): string[] {
  const text = prose(source);
  const out: string[] = [];
  for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]);
  for (const m of text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) out.push(m[1]);
  for (const m of text.matchAll(/\b(?:href|src)="([^"]+)"/g)) out.push(m[1]);
  return out;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchors(source: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of withoutFences(source).split('\n')) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const text = h[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[*`]/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  for (const m of source.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) out.add(m[1]);
  return out;
}
