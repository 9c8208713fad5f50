// Splitting a definition file into YAML frontmatter and body, after a linear check that refuses what no definition needs.
const MAX_FRONTMATTER = 64 * 1024;
const MAX_NESTING = 64;

/**
 * Frontmatter is a handful of fields. The yaml library recurses per level, so a 50,000-deep `[[[...` costs it
 * 1.5 s and a stack overflow: refuse what no definition needs, before parsing, in one linear pass.
 */
export function frontmatterShapeProblem(yaml: string): string | undefined {
  if (yaml.length > MAX_FRONTMATTER) return `it is over ${MAX_FRONTMATTER} characters`;
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < yaml.length; i++) {
    const c = yaml[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote || c === '\n') quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') {
      if (++depth > MAX_NESTING) return `it nests deeper than ${MAX_NESTING} levels`;
    } else if (c === ']' || c === '}') depth = Math.max(0, depth - 1);
  }
  const indent = /^( {256,})/m.exec(yaml);
  if (indent) return `it nests deeper than ${MAX_NESTING} levels (a line is indented ${indent[1].length} spaces)`;
  return undefined;
}

export function splitFrontmatter(text: string): { yaml: string; body: string; yamlLine: number } | undefined {
  const t = text.replace(/^\uFEFF/, '');
  const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(t) ?? /^---[ \t]*\r?\n()---[ \t]*(?:\r?\n|$)/.exec(t);
  if (!m) return undefined;
  return { yaml: m[1], body: t.slice(m[0].length), yamlLine: 2 };
}

export function lineOf(text: string, offset: number | undefined, first: number): number | undefined {
  if (offset === undefined) return undefined;
  let n = first;
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === '\n') n++;
  return n;
}

