/**
 * The README and docs/ stay true to the repository: every relative link and anchor resolves, every
 * route of the route table (imported, not copied) has its section in docs/api.md, and every
 * `npm run` script the docs name is in package.json. Pure file reads, no emulators. Each check is
 * first shown to fail on a crafted bad doc, so a check that can no longer fail is noticed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '#handlers/api/routes';
import {
  anchors,
  brokenLinks,
  type Doc,
  githubSlug,
  markdownLinks,
  missingPaths,
  namedScripts,
  routeDocProblems,
  unknownScripts,
} from '../support/doc-checks.ts';

const ROOT = join(import.meta.dirname, '..', '..');

function markdownFilesUnder(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'results' ? [] : markdownFilesUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const DOC_PATHS = ['README.md', ...markdownFilesUnder('docs'), ...markdownFilesUnder('test')];
const docs: Doc[] = DOC_PATHS.map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
const exists = (path: string) => existsSync(join(ROOT, path));
const readMarkdown = (path: string) => (exists(path) ? readFileSync(join(ROOT, path), 'utf8') : undefined);
const scripts: Record<string, string> = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;

describe('the checks fail on crafted bad docs', () => {
  const aMd = '# Alpha\n\n## Signed calls (Standard Webhooks)\n\n## `POST /v1/runs/{runId}/retry`\n\n## Alpha\n';
  const files: Record<string, string> = {
    'docs/a.md': aMd,
    'src/code.ts': '',
  };
  const fakeExists = (path: string) => Object.hasOwn(files, path) || path === 'docs' || path === 'src';
  const fakeRead = (path: string) => files[path];

  it('slugs headings as GitHub does, numbering repeats', () => {
    expect(githubSlug('Signed calls (Standard Webhooks)')).toBe('signed-calls-standard-webhooks');
    expect(githubSlug('`POST /v1/runs/{runId}/retry`')).toBe('post-v1runsrunidretry');
    expect(githubSlug('`overlap: "forbid"` holds — always')).toBe('overlap-forbid-holds--always');
    expect([...anchors(aMd)]).toEqual(['alpha', 'signed-calls-standard-webhooks', 'post-v1runsrunidretry', 'alpha-1']);
  });

  it('reports a link to a missing file, a missing anchor, and a path out of the repository', () => {
    const bad: Doc = {
      path: 'README.md',
      text: [
        'Good: [a](docs/a.md), [b](docs/a.md#alpha-1), [c](src/code.ts#L3), [d](https://example.com/x#y), [e](docs/)',
        'Bad: [gone](docs/missing.md) and [anchor](docs/a.md#beta)',
        '[out](../elsewhere.md) [self](#nowhere)',
        '`[in code](docs/ignored.md)`',
        '```',
        '[in a block](docs/ignored-too.md)',
        '```',
      ].join('\n'),
    };
    expect(brokenLinks([bad], fakeExists, fakeRead)).toEqual([
      'README.md:2 → docs/missing.md: no such file',
      'README.md:2 → docs/a.md#beta: no heading with anchor #beta in docs/a.md',
      'README.md:3 → ../elsewhere.md: leaves the repository',
      'README.md:3 → #nowhere: no heading with anchor #nowhere in README.md',
    ]);
  });

  it('reads links whose text wraps or holds code', () => {
    expect(markdownLinks('see [the\nquotas](tenants.md#quotas) and [`GET /v1/x`](api.md#get-v1x)')).toEqual([
      { target: 'tenants.md#quotas', line: 1 },
      { target: 'api.md#get-v1x', line: 2 },
    ]);
  });

  it('reports a route without a section, and a section for a route that does not exist', () => {
    const routes = [
      { method: 'GET', path: '/v1/jobs' },
      { method: 'GET', path: '/v1/jobs/{id}' },
      { method: 'POST', path: '/v1/jobs/{id}/pause' },
    ];
    const apiDoc = [
      '# API',
      '### `GET /v1/jobs`',
      'mentions GET /v1/jobs/{id} and POST /v1/jobs/{id}/pause in prose only',
      '### DELETE /v1/everything',
    ].join('\n');
    expect(routeDocProblems(routes, apiDoc)).toEqual([
      'GET /v1/jobs/{id}: not documented',
      'POST /v1/jobs/{id}/pause: not documented',
      'DELETE /v1/everything: documented, not a route',
    ]);
  });

  it('reports a repository path named in code that does not exist', () => {
    const doc: Doc = {
      path: 'docs/a.md',
      text: 'Proved by `src/code.ts` and `test/e2e/gone.test.ts`; `docs/` holds `docs/a.md`.',
    };
    expect(missingPaths([doc], fakeExists)).toEqual(['docs/a.md: `test/e2e/gone.test.ts`: no such file or folder']);
  });

  it('reports an npm script package.json does not have, in prose or in a code block', () => {
    const doc: Doc = {
      path: 'docs/a.md',
      text: 'Run `npm run bench`, then npm run capacity.\n\n```bash\nnpm run deploy:prod -- --all\nnpm start\n```\n',
    };
    expect(namedScripts(doc.text)).toEqual(['bench', 'capacity', 'deploy:prod', 'start']);
    expect(unknownScripts([doc], { bench: 'x', capacity: 'x', start: 'x' })).toEqual([
      'docs/a.md: npm run deploy:prod: no such script in package.json',
    ]);
  });
});

describe('the README and docs/', () => {
  it('are all read: the README, every docs/ file the README maps, and the test READMEs', () => {
    expect(DOC_PATHS).toEqual(
      expect.arrayContaining(['README.md', 'docs/api.md', 'docs/reliability.md', 'test/chaos/README.md']),
    );
  });

  it('every relative link and anchor resolves', () => {
    expect(brokenLinks(docs, exists, readMarkdown)).toEqual([]);
  });

  it('every route of the route table has its section in docs/api.md, and no other route does', () => {
    expect(ROUTES.length).toBeGreaterThan(0);
    expect(routeDocProblems(ROUTES, readFileSync(join(ROOT, 'docs/api.md'), 'utf8'))).toEqual([]);
  });

  it('every repository path the docs name in code exists (the tests that prove each promise among them)', () => {
    expect(missingPaths(docs, exists)).toEqual([]);
  });

  it('every npm script the docs name exists in package.json', () => {
    expect(docs.flatMap((doc) => namedScripts(doc.text))).toContain('bench');
    expect(unknownScripts(docs, scripts)).toEqual([]);
  });

  it('every file in docs/ is linked from the README map', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const readmeTargets = new Set(markdownLinks(readme).map((link) => link.target.split('#')[0]));
    const unmapped = markdownFilesUnder('docs').filter((path) => !readmeTargets.has(path));
    expect(unmapped).toEqual([]);
  });
});
