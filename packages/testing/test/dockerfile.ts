/** A small Dockerfile reader: continuation lines joined, comments dropped, ARG defaults applied. */

export interface Instruction {
  keyword: string;
  args: string;
}
export interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): {
  globalArgs: Record<string, string>;
  stages: Stage[];
} {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const m = /^(\S+)\s*(.*)$/.exec(line);
    if (!m) continue;
    const keyword = m[1]!.toUpperCase();
    const args = m[2]!.trim();
    if (keyword === 'FROM') {
      const [image = '', as, name] = args.split(/\s+/);
      const resolved = image.replace(/\$\{?(\w+)\}?/g, (_, v: string) => globalArgs[v] ?? '');
      stages.push({
        from: resolved,
        name: as?.toUpperCase() === 'AS' ? name : undefined,
        instructions: [],
      });
    } else if (stages.length === 0) {
      const arg = /^(\w+)=(\S+)$/.exec(args);
      if (keyword === 'ARG' && arg) globalArgs[arg[1]!] = arg[2]!;
    } else {
      stages[stages.length - 1]!.instructions.push({ keyword, args });
    }
  }
  return { globalArgs, stages };
}

export const all = (stage: Stage, keyword: string) =>
  stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

/** `ENV A=1 B=2` → [['A','1'],['B','2']]; `ENV A 1` → [['A','1']] */
export function envPairs(args: string): [string, string][] {
  if (!args.includes('=')) {
    const [k = '', ...v] = args.split(/\s+/);
    return [[k, v.join(' ')]];
  }
  return [...args.matchAll(/(\w+)=("[^"]*"|'[^']*'|\S*)/g)].map((m) => [
    m[1]!,
    m[2]!.replace(/^["']|["']$/g, ''),
  ]);
}
