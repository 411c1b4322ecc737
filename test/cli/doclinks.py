#!/usr/bin/env python3
"""Every relative link of the documentation resolves.

Usage: doclinks.py SOURCE_DIR     check README.md, HACKING.md and docs/*.md
       doclinks.py --self-test    show that a broken file or anchor fails

A link is a Markdown inline link or image, `[text](target)`, or a reference
definition, `[name]: target`, outside code blocks and code spans.  A target
with a scheme (https:, mailto:) is not ours to check.  The rest must name a
file or directory that exists, relative to the linking file, and an anchor
(`#...`, alone or after a .md file) must be one the target's headings make
as GitHub makes them (lowercase, punctuation dropped, spaces to hyphens, a
repeated heading's anchor suffixed -1, -2, ...) or an explicit
`<a id=...>`/`<a name=...>`.  Each broken link is one line naming the file,
the line and the target; the status is 1 when any is broken.
"""
import glob
import os
import re
import sys
import tempfile

FENCE = re.compile(r'^\s*(```|~~~)')
INLINE = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
REFDEF = re.compile(r'^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
EXPLICIT = re.compile(r'<a\s+(?:id|name)\s*=\s*"([^"]+)"')
SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')


def prose_lines(text):
    """(line number, line) of the lines outside fenced and indented code."""
    in_fence = False
    prev_blank = True
    in_indented = False
    for n, line in enumerate(text.split('\n'), 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        blank = not line.strip()
        if line.startswith('    ') and (prev_blank or in_indented) and not line.lstrip().startswith(('-', '*', '|')):
            in_indented = True
        elif not blank:
            in_indented = False
        if not in_indented:
            yield n, line
        prev_blank = blank


def strip_code_spans(line):
    return re.sub(r'(`+)(.+?)\1', '', line)


def slug(heading):
    text = re.sub(r'`([^`]*)`', r'\1', heading)
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', text)  # a link's text
    text = re.sub(r'<[^>]+>', '', text)
    text = text.lower()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def anchors(path, cache):
    if path not in cache:
        found = set()
        seen = {}
        with open(path, encoding='utf-8') as f:
            text = f.read()
        for _, line in prose_lines(text):
            found.update(EXPLICIT.findall(line))
            m = HEADING.match(line)
            if m:
                s = slug(m.group(2))
                k = seen.get(s, 0)
                seen[s] = k + 1
                found.add(s if k == 0 else f'{s}-{k}')
        cache[path] = found
    return cache[path]


def check(files):
    broken = []
    cache = {}
    for path in files:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        for n, line in prose_lines(text):
            targets = INLINE.findall(strip_code_spans(line))
            m = REFDEF.match(line)
            if m:
                targets.append(m.group(1))
            for target in targets:
                if SCHEME.match(target):
                    continue
                file_part, _, anchor = target.partition('#')
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if not os.path.exists(dest):
                    broken.append(f'{path}:{n}: {target}: no such file')
                elif anchor and dest.endswith('.md') and anchor not in anchors(dest, cache):
                    broken.append(f'{path}:{n}: {target}: no heading makes #{anchor}')
    return broken


def doc_files(src):
    files = [os.path.join(src, 'README.md'), os.path.join(src, 'HACKING.md')]
    files += sorted(glob.glob(os.path.join(src, 'docs', '*.md')))
    return [f for f in files if os.path.exists(f)]


def self_test():
    """The checker finds what it must and nothing more."""
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, 'docs'))

        def write(name, text):
            with open(os.path.join(d, name), 'w', encoding='utf-8') as f:
                f.write(text)

        write('README.md', '# Top\n\nSee [a](docs/a.md#the-rules-of-it), [b](docs/a.md#caches---cache),\n'
              '[again](docs/a.md#faq-1), [here](#top), [web](https://example.org/x) and\n'
              '![img](docs/a.md).\n\n    [not a link](nowhere.md)\n\n```\n[nor this](nowhere.md)\n```\n'
              'Nor `[this](nowhere.md)`.\n\n[ref]: docs/a.md#explicit\n')
        write('HACKING.md', '# Hacking\n')
        write('docs/a.md', '# A\n\n## The rules of it\n\n## Caches: `--cache`\n\n## FAQ\n\n## FAQ\n\n'
              '<a id="explicit"></a>\n\nBack [up](../README.md#top).\n')
        good = check(doc_files(d))
        if good:
            return ['self-test: a good tree reported broken: ' + '; '.join(good)]
        problems = []
        for bad, why in [('[x](docs/missing.md)', 'a missing file'),
                         ('[x](docs/a.md#no-such-heading)', 'a missing anchor'),
                         ('[x](#nowhere)', 'a missing anchor in the same file'),
                         ('[x](docs/a.md#faq-2)', 'a third FAQ that is not there'),
                         ('[x]: docs/gone.md', 'a reference definition to a missing file')]:
            write('HACKING.md', f'# Hacking\n\n{bad}\n')
            if len(check(doc_files(d))) != 1:
                problems.append(f'self-test: {why} ({bad}) is not reported once')
        return problems


def main(argv):
    if argv[1:] == ['--self-test']:
        problems = self_test()
    elif len(argv) == 2:
        problems = check(doc_files(argv[1]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
