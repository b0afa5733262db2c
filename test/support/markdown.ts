/**
 * Reading the project's Markdown the way a reader (and GitHub) sees it: fenced code blocks, links and
 * heading anchors. Used by the tests that hold the documentation to the code.
 */

/** A fenced code block: its info string (`ts`, `sh`, ...) and its text without the fences. */
export interface CodeBlock {
  lang: string;
  text: string;
}

const fence = /^(\s*)(```+|~~~+)(.*)$/;

/** Every fenced code block of `markdown`, in order (indented fences in lists included). */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { marker: string; indent: string; lang: string; lines: string[] } | undefined;
  for (const line of markdown.split('\n')) {
    const match = fence.exec(line);
    if (open) {
      if (match && match[2]!.startsWith(open.marker) && match[3]!.trim() === '') {
        blocks.push({ lang: open.lang, text: `${open.lines.join('\n')}\n` });
        open = undefined;
      } else open.lines.push(line.startsWith(open.indent) ? line.slice(open.indent.length) : line);
    } else if (match) open = { marker: match[2]!, indent: match[1]!, lang: match[3]!.trim(), lines: [] };
  }
  return blocks;
}

/** The one code block whose first line is `firstLine` (a file-name comment, say); throws when there is not exactly one. */
export function codeBlockStartingWith(markdown: string, firstLine: string): string {
  const found = codeBlocks(markdown).filter((block) => block.text.split('\n')[0]!.trim() === firstLine);
  if (found.length !== 1)
    throw new Error(`Failed to find the code block starting with "${firstLine}": found ${found.length}`);
  return found[0]!.text;
}

/** `markdown` without its fenced code blocks and inline code spans: the prose a reader reads. */
export function prose(markdown: string): string {
  const lines: string[] = [];
  let inFence: string | undefined;
  for (const line of markdown.split('\n')) {
    const match = fence.exec(line);
    if (inFence) {
      if (match && match[2]!.startsWith(inFence)) inFence = undefined;
    } else if (match) inFence = match[2]!;
    else lines.push(line.replace(/(`+)[^`]*?\1/g, ''));
  }
  return lines.join('\n');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inFence: string | undefined;
  for (const line of markdown.split('\n')) {
    const match = fence.exec(line);
    if (inFence) {
      if (match && match[2]!.startsWith(inFence)) inFence = undefined;
      continue;
    }
    if (match) {
      inFence = match[2]!;
      continue;
    }
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** How a Markdown page names a link target: inline (images too), as a reference definition, in HTML. */
const linkForms = [
  /!?\[[^\]]*\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g,
  /^ {0,3}\[[^\]]+\]:[ \t]*<?([^\s>]+)>?/gm,
  /<(?:a|img|source)\s[^>]*?\b(?:href|src)="([^"]+)"/gi,
];

/** Every link target of the prose (`[text](target)`, `[label]: target`, `<a href>`, `<img src>`), code excluded. */
export function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  return linkForms.flatMap((form) => [...text.matchAll(form)].map((match) => match[1]!));
}

/**
 * The repository file or folder a link names when it points into the project's repository on GitHub
 * (`REPOSITORY/blob/main/PATH` or `REPOSITORY/tree/main/PATH`, REPOSITORY as package.json's
 * `repository.url` says), or undefined. Shipped pages link so to what the package leaves out.
 *
 * @example repositoryPath('https://github.com/o/r/blob/main/docs/a.md#x', 'git+https://github.com/o/r.git') // 'docs/a.md#x'
 */
export function repositoryPath(target: string, repositoryUrl: string): string | undefined {
  for (const kind of ['blob', 'tree']) {
    const prefix = `${repositoryWeb(repositoryUrl)}/${kind}/main/`;
    if (target.startsWith(prefix)) return target.slice(prefix.length);
  }
  return undefined;
}

/** The repository's web address from package.json's `repository.url` (`git+https://github.com/o/r.git` -> `https://github.com/o/r`). */
export function repositoryWeb(repositoryUrl: string): string {
  return repositoryUrl.replace(/^git\+/, '').replace(/\.git$/, '');
}
