// The import graph of a package's sources, read with TypeScript's own pre-processor (no type checking, so it
// takes well under a second): every `import`, `import type`, `export … from` and `import()` with a relative
// specifier, resolved to a file. Type-only imports count: a loop of types is still a loop for a reader.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Each source file (path relative to `root`) and the files of the same tree it imports. */
export type ImportGraph = Map<string, string[]>;

/** The `.ts` files under `dir`, recursively, tests included (a test's import of a module is no edge back). */
function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names: as written, `.js` written for `.ts`, without extension, or a folder's index. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((path) => path.endsWith('.ts') && existsSync(path) && statSync(path).isFile());
}

/** The relative imports of every `.ts` file under `dir` (paths relative to `root`). */
export function importGraph(dir: string, root: string): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of sourcesUnder(dir)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .filter(({ fileName }) => fileName.startsWith('.'))
      .map(({ fileName }) => resolveSpecifier(file, fileName))
      .filter((target): target is string => target !== undefined)
      .map((target) => relative(root, target));
    graph.set(relative(root, file), [...new Set(targets)]);
  }
  return graph;
}

/** Files that import each other, directly or not (a strongly connected component), and one loop through them. */
export interface ImportKnot {
  /** A shortest loop from the knot's first file back to it: `a.ts -> b.ts -> a.ts`. */
  loop: string[];
  /** Every file of the knot, sorted; more than the loop's when several loops share files. */
  files: string[];
}

/** The import loops of a graph: one knot per strongly connected component (Tarjan), with one loop walked through it. */
export function importLoops(graph: ImportGraph): ImportKnot[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    const selfImport = graph.get(file)?.includes(file) ?? false;
    if (component.length > 1 || selfImport) components.push(component);
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return components.map((component) => ({ loop: loopThrough(graph, new Set(component)), files: component.sort() }));
}

/** A shortest path from the component's first file (by name) back to itself, inside the component (breadth first). */
function loopThrough(graph: ImportGraph, component: Set<string>): string[] {
  const start = [...component].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of graph.get(file) ?? []) {
      if (!component.has(target)) continue;
      if (target === start) {
        const back = [file];
        while (back.at(-1) !== start) back.push(cameFrom.get(back.at(-1)!)!);
        return [...back.reverse(), start];
      }
      if (!cameFrom.has(target) && target !== start) {
        cameFrom.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start, start];
}
