import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

function markdownFiles(): string[] {
  const inDocs = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return inDocs(path);
      return name.endsWith('.md') ? [path] : [];
    });
  return [join(ROOT, 'README.md'), join(ROOT, 'prisma', 'README.md'), ...inDocs(join(ROOT, 'docs'))];
}

/** Markdown outside fenced code blocks (links in examples are not links). */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const headings = prose(readFileSync(file, 'utf8')).match(/^#{1,6} .*$/gm) ?? [];
  return new Set(headings.map((line) => slug(line.replace(/^#+ /, ''))));
}

/** Every relative link of README.md, prisma/README.md and docs/: the file exists, and so does the heading. */
describe('links in the docs', () => {
  const links = markdownFiles().flatMap((file) =>
    [...prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => match[1])
      .filter((target) => !/^[a-z]+:/i.test(target))
      .map((target) => ({ file, target })),
  );

  it('README.md stays a short front door: at most 300 lines, each heading once', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    const headings: string[] = prose(readme).match(/^#{1,6} .*$/gm) ?? [];
    expect(headings.filter((heading, index) => headings.indexOf(heading) !== index)).toEqual([]);
  });

  it('are found (the check itself works)', () => {
    expect(links.length).toBeGreaterThan(20);
  });

  it.each(links.map(({ file, target }) => [relative(ROOT, file), target, file]))('%s → %s', (_name, target, file) => {
    const [path, anchor] = target.split('#', 2);
    const linked = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    expect({ target, exists: existsSync(linked) }).toEqual({ target, exists: true });
    if (anchor !== undefined && linked.endsWith('.md')) {
      expect({ target, anchor: anchorsOf(linked).has(anchor) }).toEqual({ target, anchor: true });
    }
  });
});
