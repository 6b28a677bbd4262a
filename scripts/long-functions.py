#!/usr/bin/env python3
"""Lists C++ function definitions longer than N lines (default 80), from the signature to the
closing brace, longest first: issue 36's check that no product function passes 80 lines but
tables. A brace scanner, not a parser: comments, strings and preprocessor lines are blanked.
Usage: scripts/long-functions.py [--max N] DIR...  (skips *_test.cc, *_for_test.h, build/)"""
import os, re, sys

def strip(text):
    # Blanks comments, string and char literals (raw strings too), keeping newlines.
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i); j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2); j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i-1].isalnum() or text[i-1] == '_')):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c); i += 1; continue
            end = text.find(')' + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:end])); i = end
        elif c in '"\'':
            if c == "'" and i > 0 and text[i-1].isalnum():  # digit separator 1'000
                out.append(' '); i += 1; continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(re.sub(r'[^\n]', ' ', text[i:j+1])); i = j + 1
        else:
            out.append(c); i += 1
    return ''.join(out)

SCOPE = re.compile(r'^\s*((template\s*<[^{]*>\s*)?(namespace|class|struct|union|enum)\b|extern\s*$)')

def functions(path):
    text = strip(open(path, encoding='utf-8', errors='replace').read())
    # Preprocessor lines (and their continuations) are not code.
    text = re.sub(r'(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)
    stack, header_start, results = [], 0, []
    for i, c in enumerate(text):
        if c in ';{}':
            if c == '{':
                header = text[header_start:i]
                in_function = any(k == 'fn' or k == 'other' for k, _ in stack)
                h = header.strip()
                if not in_function and (SCOPE.match(h) or h.startswith('extern "')):
                    stack.append(('scope', None))
                elif not in_function and ')' in h and '=' not in h.split('(')[0]:
                    off = header_start + (len(header) - len(header.lstrip()))
                    stack.append(('fn', (off, h)))
                else:
                    stack.append(('other', None))
            elif c == '}':
                if stack:
                    kind, info = stack.pop()
                    if kind == 'fn':
                        off, h = info
                        first = text.count('\n', 0, off) + 1
                        last = text.count('\n', 0, i) + 1
                        name = re.sub(r'\s+', ' ', h.split('(')[0]).split(' ')[-1]
                        results.append((last - first + 1, first, name))
            header_start = i + 1
    return results

def main():
    args, limit = sys.argv[1:], 80
    if args[:1] == ['--max']:
        limit, args = int(args[1]), args[2:]
    rows = []
    for d in args:
        for root, dirs, files in os.walk(d):
            dirs[:] = sorted(x for x in dirs if x != 'build' and not x.startswith('.'))
            for f in sorted(files):
                if not f.endswith(('.cc', '.h')) or f.endswith(('_test.cc', '_for_test.h')):
                    continue
                p = os.path.join(root, f)
                rows += [(n, p, line, name) for n, line, name in functions(p) if n > limit]
    for n, p, line, name in sorted(rows, reverse=True):
        print(f'{n:4d}  {p}:{line}  {name}')

main()
