import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Paths that the repository's own text points at, and the ones that lead nowhere.
 *
 * Read: every tracked `.ts`, `.js`, `.cjs`, `.mjs`, `.sql`, `.md`, `.json`, `.yml`/`.yaml`, `.sh`
 * file, Dockerfile and script without an extension that starts with `#!` (`.ci/run`), from
 * `git ls-files`; lockfiles and ignored folders are not tracked or left out.
 *
 * A reference is
 * - a token that starts with one of the repository's top folders and a slash (`src`, `docs`,
 *   `test`, `migrations`, `bench`, `scripts`, `packages`, `services`, `infra`, `openapi`, `eval`,
 *   `dist`, `.github`, `.ci`), optionally after `./` or `../` steps, and not in the middle of a
 *   word, URL or longer path (`https://…/src/x`, `@hub/x/src/y` and `/docs` routes are not);
 * - in Markdown files, the target of a link `[text](target)` that has no scheme (`https:`,
 *   `mailto:`) and is not only an `#anchor`;
 * - in package.json, `main`, `types`, `typings`, `bin` and every path in `exports`.
 *
 * It exists when it names a file or folder relative to the referring file's folder, its package
 * (the nearest folder with a package.json) or the repository root; a module path may leave out
 * its `.ts`/`.js`/`.mjs` or say `.js` for a `.ts` source. Markdown links and package.json fields
 * resolve only relative to their own file, as the readers of those files do.
 *
 * Placeholders are matched, not skipped: `*` stands for part of a name, `<id>` and `${x}` for one
 * name, `…` and `...` for anything, and each choice of `{a,b}` must be there.
 *
 * The one allow rule, for paths that are not in the repository by design: a path that git
 * ignores (`.gitignore`: `dist/`, `node_modules/`, `.data/`, `coverage/`, an operator's env file)
 * is made by a build, a run or a person, and is not checked; except in a tsconfig's `outDir`,
 * where it is what `tsc -b` writes from a source, and that source (the path under `rootDir`,
 * `.js` or `.d.ts` read as `.ts`) must exist: `dist/index.js` stands for `src/index.ts`.
 *
 * A file whose paths are made-up examples (this module's tests) says so on its first line,
 * `// path-references: examples`, and is not read.
 */

export interface PathReference {
  /** 1-based line in the referring file */
  line: number;
  /** the path as written (anchor and query left out) */
  path: string;
  /** how it resolves: `text` from the three bases, `link` and `entry` from the file's folder */
  kind: 'text' | 'link' | 'entry';
}

const TOP_FOLDERS = [
  'src',
  'docs',
  'test',
  'migrations',
  'bench',
  'scripts',
  'packages',
  'services',
  'infra',
  'openapi',
  'eval',
  'dist',
  '\\.github',
  '\\.ci',
];
/** One path segment's characters, or a whole `<…>`, `{…}` or `${…}` placeholder. */
const PATH_PART = String.raw`(?:[\w.\-*…]|\$?\{[^}\s]*\}|<[^>\s]*>)`;
const TEXT_PATH = new RegExp(
  String.raw`(?<![\w./@:$}\\-])(?:\.{1,2}/)*(?:${TOP_FOLDERS.join('|')})/${PATH_PART}*(?:/${PATH_PART}*)*`,
  'g',
);
const MARKDOWN_LINK = /\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const EXAMPLES = /^\/\/ path-references: examples\b/;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** The path references of one file's text (`file` only chooses the rules: .md, package.json). */
export function pathReferences(text: string, file: string): PathReference[] {
  const refs: PathReference[] = [];
  if (EXAMPLES.test(text)) return refs;
  const name = path.basename(file);
  const entries = name === 'package.json' ? packageEntryPoints(text) : [];
  const markdown = name.endsWith('.md');
  text.split('\n').forEach((content, i) => {
    const seen = new Set(entries.map((e) => e.path));
    const add = (p: string, kind: PathReference['kind']) => {
      if (seen.has(p)) return;
      seen.add(p);
      refs.push({ line: i + 1, path: p, kind });
    };
    if (markdown) {
      for (const m of content.matchAll(MARKDOWN_LINK)) {
        const target = m[1]!.replace(/[#?].*$/, '');
        if (target && !SCHEME.test(m[1]!)) add(target, 'link');
      }
    }
    for (const m of content.matchAll(TEXT_PATH)) {
      const p = m[0].replace(/[.,:;]+$/, '');
      add(p, 'text');
    }
  });
  return [...entries, ...refs].sort((a, b) => a.line - b.line);
}

/** `main`, `types`, `typings`, `bin` and the paths of `exports` of a package.json text. */
export function packageEntryPoints(text: string): PathReference[] {
  const pkg = JSON.parse(text) as Record<string, unknown>;
  const lines = text.split('\n');
  const found: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') found.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  for (const field of ['main', 'types', 'typings', 'bin', 'exports']) collect(pkg[field]);
  return [...new Set(found)].map((p) => ({
    line: lines.findIndex((l) => l.includes(JSON.stringify(p))) + 1,
    path: p,
    kind: 'entry' as const,
  }));
}

const TEXT_FILE = /(\.(ts|js|cjs|mjs|sql|md|json|ya?ml|sh)|(^|\/)Dockerfile[^/]*)$/;
const LEFT_OUT = /(^|\/)(node_modules|dist)\/|(^|\/)pnpm-lock\.yaml$/;

/** The repository as the check sees it: paths relative to `root`, with `/` (the root is ''). */
interface Repository {
  root: string;
  /** every tracked file */
  files: string[];
  /** every tracked file and every folder holding one */
  paths: Set<string>;
  /** each tsconfig's outDir and rootDir: where `tsc -b` writes what it compiles */
  outputs: Array<{ outDir: string; rootDir: string }>;
  /** the folders with a package.json, the root left out */
  packages: string[];
}

function readRepository(root: string): Repository {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && fs.existsSync(path.join(root, f)));
  const paths = new Set<string>();
  for (const file of files) for (let p = file; p !== '.'; p = path.posix.dirname(p)) paths.add(p);
  const outputs = files
    .filter((f) => /(^|\/)tsconfig[^/]*\.json$/.test(f))
    .flatMap((f) => {
      const dir = path.posix.dirname(f);
      const options = (
        JSON.parse(fs.readFileSync(path.join(root, f), 'utf8')) as {
          compilerOptions?: { outDir?: string; rootDir?: string };
        }
      ).compilerOptions;
      if (!options?.outDir) return [];
      const at = (p: string) => path.posix.normalize(path.posix.join(dir, p));
      return [{ outDir: at(options.outDir), rootDir: at(options.rootDir ?? '.') }];
    });
  const packages = files
    .filter((f) => f.endsWith('/package.json'))
    .map((f) => path.posix.dirname(f));
  return { root, files, paths, outputs, packages };
}

/** The tracked files that are read: by their names, or an extensionless script by its `#!`. */
function textFiles(repo: Repository): string[] {
  const script = (f: string) =>
    !path.posix.basename(f).includes('.') &&
    fs.readFileSync(path.join(repo.root, f), 'utf8').startsWith('#!');
  return repo.files.filter((f) => !LEFT_OUT.test(f) && (TEXT_FILE.test(f) || script(f)));
}

const PLACEHOLDER = /[*<>{}$…]|\.\.\./;
/** A placeholder's parts: `*` one name's worth, `<x>`/`${x}` one name, `…`/`...` anything. */
const PLACEHOLDER_PART = /(\*|<[^>\s]*>|\$\{[^}\s]*\}|…|\.\.\.)/;

/** `a/{b,c}/d` as `a/b/d` and `a/c/d` (`${x}` is a placeholder, not a choice). */
export function expandChoices(p: string): string[] {
  const m = /(?<!\$)\{([^{}]*)\}/.exec(p);
  if (!m) return [p];
  return m[1]!
    .split(',')
    .flatMap((choice) =>
      expandChoices(p.slice(0, m.index) + choice + p.slice(m.index + m[0].length)),
    );
}

/** Where a module path may be written without its extension, or as `.js` for a `.ts` source. */
const MODULE_FORMS = ['', '.ts', '.js', '.mjs', '.d.ts', '/index.ts', '/index.js'];

/** Whether one path (relative to the root; placeholders allowed) names tracked files. */
function tracked(repo: Repository, p: string): boolean {
  const forms = MODULE_FORMS.map((ext) => p + ext);
  if (p.endsWith('.js')) forms.push(p.replace(/\.js$/, '.ts'));
  if (!PLACEHOLDER.test(p)) return forms.some((f) => repo.paths.has(f));
  const pattern = new RegExp(
    '^(?:' +
      forms
        .map((f) =>
          f
            .split(PLACEHOLDER_PART)
            .map((part, i) =>
              i % 2 === 0
                ? part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
                : /^(…|\.\.\.)$/.test(part)
                  ? '.*'
                  : part === '*'
                    ? '[^/]*'
                    : '[^/]+',
            )
            .join(''),
        )
        .join('|') +
      ')$',
  );
  return [...repo.paths].some((t) => pattern.test(t));
}

type Verdict = 'there' | 'missing' | 'unknown';

/**
 * Whether a path relative to the root is there: `there` or `missing` for the repository's files
 * and folders and for build outputs (by their sources); `unknown` when it is not in the
 * repository (a build or a run may make it, which `.gitignore` says).
 */
function verdict(repo: Repository, p: string): Verdict {
  const output = repo.outputs.find((o) => p === o.outDir || p.startsWith(o.outDir + '/'));
  if (output) {
    const source = path.posix.join(output.rootDir, path.posix.relative(output.outDir, p));
    const asTs = source.replace(/\.d\.ts$|\.js$/, '.ts');
    return tracked(repo, asTs) || tracked(repo, source) ? 'there' : 'missing';
  }
  return expandChoices(p).every((choice) => tracked(repo, choice)) ? 'there' : 'unknown';
}

/** The nearest folder at or above `dir` with a package.json ('' for the root). */
function packageOf(repo: Repository, dir: string): string {
  for (let d = dir; d !== '.'; d = path.posix.dirname(d)) if (repo.packages.includes(d)) return d;
  return '';
}

/** Which of `paths` (relative to the root) git ignores: made by a build, a run or an operator. */
function ignoredByGit(root: string, paths: string[]): Set<string> {
  if (paths.length === 0) return new Set();
  const result = spawnSync('git', ['check-ignore', '--no-index', '--stdin', '-z'], {
    cwd: root,
    input: paths.join('\0'),
    encoding: 'utf8',
  });
  return new Set(result.stdout.split('\0').filter(Boolean));
}

/** Every reference in the repository at `root` that leads nowhere, as `file:line: path`. */
export function missingPathReferences(root: string): string[] {
  const repo = readRepository(root);
  const unresolved: Array<{ at: string; candidates: string[] }> = [];
  for (const file of textFiles(repo)) {
    const dir = path.posix.dirname(file);
    const pkg = packageOf(repo, dir);
    // a file outside every package (the repository's own docs) speaks of the packages in general
    const bases = [...new Set([dir, pkg, '', ...(pkg === '' ? repo.packages : [])])];
    for (const ref of pathReferences(fs.readFileSync(path.join(root, file), 'utf8'), file)) {
      const candidates = (ref.kind === 'text' ? bases : [dir])
        .map((base) => path.posix.normalize(path.posix.join(base, ref.path)).replace(/\/$/, ''))
        .filter((p) => p !== '..' && !p.startsWith('../'));
      const verdicts = candidates.map((p) => ({ p, verdict: verdict(repo, p) }));
      if (verdicts.some((v) => v.verdict === 'there')) continue;
      unresolved.push({
        at: `${file}:${ref.line}: ${ref.path}`,
        candidates: verdicts.filter((v) => v.verdict === 'unknown').map((v) => v.p),
      });
    }
  }
  // asked as a file and as a folder: `dist/` in .gitignore matches only folders
  const asked = unresolved.flatMap((u) => u.candidates.flatMap((c) => [c, `${c}/`]));
  const ignored = ignoredByGit(root, [...new Set(asked)]);
  const generated = (c: string) => ignored.has(c) || ignored.has(`${c}/`);
  return unresolved.filter((u) => !u.candidates.some(generated)).map((u) => u.at);
}
