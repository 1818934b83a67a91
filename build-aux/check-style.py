#!/usr/bin/env python3
# check-style.py: the whitespace rules of .editorconfig, checked over the tracked sources:
# spaces only (no tabs), no trailing white space, LF line ends, a final newline, and the
# GNU brace style's "return type on its own line" for function definitions in .c files.
import os
import re
import subprocess
import sys

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
try:
    files = subprocess.run(["git", "-C", top, "ls-files", "*.c", "*.h", "meson.build", "*/meson.build",
                            "*.ui", "*.css", "*.xml", "*.in", "*.sh", "*.py"],
                           check=True, capture_output=True, text=True).stdout.split()
except (OSError, subprocess.CalledProcessError):
    files = []
    for root, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith(('.', 'build', '_build', 'node_modules'))]
        files += [os.path.relpath(os.path.join(root, n), top) for n in names
                  if n.endswith(('.c', '.h', '.ui', '.css', '.xml', '.in', '.sh', '.py')) or n == 'meson.build']

# A definition's name at the start of a line, then "(": the type must be on the line before.
definition = re.compile(r'^[A-Za-z_][A-Za-z0-9_ \*]*\s+\**[a-z_][a-z0-9_]*\s*\([^;]*$')
problems = []
for rel in files:
    if 'node_modules' in rel or rel.startswith('tests/fuzz/corpus') or rel.startswith('tests/data'):
        continue
    path = os.path.join(top, rel)
    if not os.path.isfile(path):
        continue
    data = open(path, 'rb').read()
    if not data:
        continue
    if b'\r\n' in data:
        problems.append(f"{rel}: CRLF line ends")
    if not data.endswith(b'\n'):
        problems.append(f"{rel}: no newline at the end")
    for n, line in enumerate(data.decode('utf-8', 'replace').split('\n'), 1):
        if '\t' in line and not rel.endswith(('.xml', '.in')):
            problems.append(f"{rel}:{n}: tab")
        if line.rstrip() != line:
            problems.append(f"{rel}:{n}: trailing white space")
        if rel.endswith('.c') and definition.match(line) and not line.startswith(('static ', 'return', 'typedef', 'G_', '#')) \
                and '=' not in line and line.split('(')[0].strip().count(' ') >= 1 and not line.startswith(' '):
            problems.append(f"{rel}:{n}: put the return type of a definition on its own line")

for p in problems[:200]:
    print(p)
if problems:
    print(f"{len(problems)} style problems (see .editorconfig)")
    sys.exit(1)
print(f"style: {len(files)} files checked")
