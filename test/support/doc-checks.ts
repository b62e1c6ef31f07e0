/**
 * Pure checks that keep the README and docs/ honest (test/unit/docs.test.ts runs them on the real
 * files and on crafted bad ones): relative links and their anchors resolve, every route of the
 * route table has its section in docs/api.md, and every `npm run` script the docs name exists.
 * They take text and lookups, never the file system, so a fake doc can show each one failing.
 */
import { posix } from 'node:path';

export interface Doc {
  /** Path from the repository root, with forward slashes (e.g. `docs/api.md`). */
  path: string;
  text: string;
}

export interface DocLink {
  target: string;
  line: number;
}

export interface RouteLike {
  method: string;
  path: string;
}

/** The text with fenced code blocks blanked (line numbers kept): nothing in them is a link or a heading. */
function withoutFences(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && marker) {
        fence = marker;
        return '';
      }
      if (fence !== undefined) {
        if (marker?.startsWith(fence)) fence = undefined;
        return '';
      }
      return line;
    })
    .join('\n');
}

/** Inline code spans become `code`: a span may hold `](` or `#` that are not markdown. */
function withoutCodeSpans(text: string): string {
  return text.replace(/`[^`]*`/g, (span) => `code${'\n'.repeat(span.split('\n').length - 1)}`);
}

/** Inline links and images outside code: `[text](target)` and `![alt](target "title")`. */
export function markdownLinks(markdown: string): DocLink[] {
  const text = withoutCodeSpans(withoutFences(markdown));
  const links: DocLink[] = [];
  for (const match of text.matchAll(/\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const line = text.slice(0, match.index).split('\n').length;
    links.push({ target: match[1] ?? '', line });
  }
  return links;
}

/** The anchor GitHub gives a heading: its rendered text, lower case, punctuation dropped, spaces as hyphens. */
export function githubSlug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** ATX headings outside code blocks, in order. */
export function headings(markdown: string): string[] {
  const found: string[] = [];
  for (const line of withoutFences(markdown).split('\n')) {
    const match = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (match?.[1] !== undefined) found.push(match[1]);
  }
  return found;
}

/** Every anchor of a document, a repeated heading getting `-1`, `-2`… as on GitHub. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const heading of headings(markdown)) {
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/**
 * Relative links that lead nowhere: a file or folder that does not exist (`exists`), a path out of
 * the repository, or an anchor that no heading of the target markdown file (`readMarkdown`) has.
 * Links with a scheme (https:, mailto:) are not followed.
 */
export function brokenLinks(
  docs: readonly Doc[],
  exists: (path: string) => boolean,
  readMarkdown: (path: string) => string | undefined,
): string[] {
  const problems: string[] = [];
  for (const doc of docs) {
    for (const link of markdownLinks(doc.text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue;
      const where = `${doc.path}:${link.line} → ${link.target}`;
      const hashAt = link.target.indexOf('#');
      const filePart = hashAt === -1 ? link.target : link.target.slice(0, hashAt);
      const anchor = hashAt === -1 ? undefined : decodeURIComponent(link.target.slice(hashAt + 1));
      const path =
        filePart === '' ? doc.path : posix.normalize(posix.join(posix.dirname(doc.path), decodeURI(filePart)));
      if (path.startsWith('../') || posix.isAbsolute(path)) {
        problems.push(`${where}: leaves the repository`);
        continue;
      }
      if (filePart !== '' && !exists(path.replace(/\/$/, ''))) {
        problems.push(`${where}: no such file`);
        continue;
      }
      if (anchor === undefined || !path.endsWith('.md')) continue;
      const markdown = filePart === '' ? doc.text : readMarkdown(path);
      if (markdown === undefined) problems.push(`${where}: cannot read ${path}`);
      else if (!anchors(markdown).has(anchor)) problems.push(`${where}: no heading with anchor #${anchor} in ${path}`);
    }
  }
  return problems;
}

const HTTP_METHODS = 'GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS';

/** The routes a doc gives a heading of their own: `### POST /v1/jobs` or ``### `POST /v1/jobs` ``. */
export function routeHeadings(markdown: string): Set<string> {
  const result = new Set<string>();
  for (const heading of headings(markdown)) {
    const match = new RegExp(`^(${HTTP_METHODS}) (/\\S*)$`).exec(heading.replace(/`/g, '').trim());
    if (match) result.add(`${match[1]} ${match[2]}`);
  }
  return result;
}

/** Routes of the table with no section in the API doc, and sections for routes the table does not have. */
export function routeDocProblems(routes: readonly RouteLike[], apiDoc: string): string[] {
  const documented = routeHeadings(apiDoc);
  const declared = new Set(routes.map((route) => `${route.method} ${route.path}`));
  return [
    ...[...declared].filter((route) => !documented.has(route)).map((route) => `${route}: not documented`),
    ...[...documented].filter((route) => !declared.has(route)).map((route) => `${route}: documented, not a route`),
  ];
}

/** `npm run <script>`, `npm start` and `npm test` anywhere in the docs, code blocks included. */
export function namedScripts(markdown: string): string[] {
  const names: string[] = [];
  for (const match of markdown.matchAll(/\bnpm\s+(?:run(?:-script)?\s+([A-Za-z0-9][\w:.-]*)|(start|test)\b)/g)) {
    names.push((match[1] ?? match[2] ?? '').replace(/[.:]+$/, ''));
  }
  return names;
}

/** Scripts the docs name that package.json does not have. */
export function unknownScripts(docs: readonly Doc[], scripts: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  for (const doc of docs) {
    for (const name of new Set(namedScripts(doc.text))) {
      if (!Object.hasOwn(scripts, name)) problems.push(`${doc.path}: npm run ${name}: no such script in package.json`);
    }
  }
  return problems;
}

/** Repository paths the docs name as a whole code span (`test/e2e/fuzz.test.ts`, `lib/constructs/`) that do not exist. */
export function missingPaths(docs: readonly Doc[], exists: (path: string) => boolean): string[] {
  const problems: string[] = [];
  for (const doc of docs) {
    for (const match of doc.text.matchAll(/`((?:bin|docs|functions|lib|schemas|test|\.ci|\.github)\/[\w./-]*)`/g)) {
      const path = (match[1] ?? '').replace(/\/$/, '');
      if (!exists(path)) problems.push(`${doc.path}: \`${match[1]}\`: no such file or folder`);
    }
  }
  return problems;
}
