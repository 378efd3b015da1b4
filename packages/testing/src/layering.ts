import fs from 'node:fs';
import path from 'node:path';

/**
 * The layering of a service's `src/`, top to bottom: each layer names the top-level folders
 * and files (without `.ts`) in it. A module may import from its own folder and from any
 * layer below its own; an import of a layer above, or of another folder of the same layer,
 * runs up or sideways.
 */
export type Layers = ReadonlyArray<ReadonlyArray<string>>;

export interface ImportEdge {
  /** importing file, relative to src */
  from: string;
  /** imported file, relative to src */
  to: string;
}

const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']*)'/gm;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

function resolveModule(fromFile: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(fromFile), spec);
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')])
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  return undefined;
}

/** Every relative import between the modules of `srcDir` (paths relative to it). */
export function importEdges(srcDir: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(srcDir)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const target = resolveModule(file, match[1]!);
      if (target)
        edges.push({ from: path.relative(srcDir, file), to: path.relative(srcDir, target) });
    }
  }
  return edges;
}

/** The top-level folder or file (without .ts) a module of src belongs to. */
function unitOf(relative: string): string {
  return relative.split(path.sep)[0]!.replace(/\.ts$/, '');
}

/** Imports that run up or sideways across `layers`, as "from → to" lines. */
export function layerViolations(srcDir: string, layers: Layers): string[] {
  const layerOf = new Map<string, number>();
  layers.forEach((units, i) => units.forEach((unit) => layerOf.set(unit, i)));
  const problems: string[] = [];
  for (const edge of importEdges(srcDir)) {
    const from = unitOf(edge.from);
    const to = unitOf(edge.to);
    if (from === to) continue;
    const a = layerOf.get(from);
    const b = layerOf.get(to);
    if (a === undefined || b === undefined) {
      problems.push(`${edge.from} → ${edge.to}: ${a === undefined ? from : to} is in no layer`);
    } else if (b <= a) {
      problems.push(`${edge.from} → ${edge.to}: ${b < a ? 'up' : 'sideways'}`);
    }
  }
  return problems;
}

/** Import cycles between modules, each as "a → b → … → a". */
export function importCycles(srcDir: string): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of importEdges(srcDir)) next.set(from, [...(next.get(from) ?? []), to]);
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const target of next.get(node) ?? []) {
      if (state.get(target) === 'open')
        cycles.push([...stack.slice(stack.indexOf(target)), target].join(' → '));
      else if (!state.has(target)) visit(target);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of next.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

/**
 * The two tests of a service's layering, named after the rules they check: no import runs up
 * or sideways across `layers`, and no import cycle between modules of `srcDir`.
 */
export function describeLayering(srcDir: string, layers: Layers): void {
  test('No import in src runs up or sideways across the layers', () => {
    expect(layerViolations(srcDir, layers)).toEqual([]);
  });
  test('No two modules in src import each other, directly or around a cycle', () => {
    expect(importCycles(srcDir)).toEqual([]);
  });
}
