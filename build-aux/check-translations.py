#!/usr/bin/env python3
# check-translations.py: the po-complete test. For every language in po/LINGUAS the catalog
# must compile with msgfmt --check, have no untranslated or fuzzy message, and hold exactly the
# messages the sources have now: a string added, changed or removed since the last msgmerge
# fails the test, so a release never ships half in English. POTFILES.in must also name every
# source file that marks strings for translation, or xgettext would never see them.
#
# Usage: check-translations.py --source-root DIR [--msgfmt P] [--xgettext P] [-- XGETTEXT-ARGS]
# It needs no generated locale and writes only to a temporary directory.
import argparse
import os
import re
import subprocess
import sys
import tempfile

# The keywords and flags of meson's i18n 'glib' preset, which po/meson.build uses.
GLIB_PRESET = [
    '--from-code=UTF-8',
    '--add-comments',
    '--keyword=_',
    '--keyword=N_',
    '--keyword=C_:1c,2',
    '--keyword=NC_:1c,2',
    '--keyword=g_dcgettext:2',
    '--keyword=g_dngettext:2,3',
    '--keyword=g_dpgettext2:2c,3',
    '--flag=N_:1:pass-c-format',
    '--flag=C_:2:pass-c-format',
    '--flag=NC_:2:pass-c-format',
    '--flag=g_dngettext:2:pass-c-format',
    '--flag=g_strdup_printf:1:c-format',
    '--flag=g_string_printf:2:c-format',
    '--flag=g_string_append_printf:2:c-format',
    '--flag=g_error_new:3:c-format',
    '--flag=g_set_error:4:c-format',
    '--flag=g_markup_printf_escaped:1:c-format',
    '--flag=g_log:3:c-format',
    '--flag=g_print:1:c-format',
    '--flag=g_printerr:1:c-format',
    '--flag=g_printf:1:c-format',
    '--flag=g_fprintf:2:c-format',
    '--flag=g_sprintf:2:c-format',
    '--flag=g_snprintf:3:c-format',
]

# What marks a string for translation in C sources and in GtkBuilder files.
C_MARK = re.compile(r'(?<![A-Za-z0-9_])(?:_|N_|C_|NC_|g_dngettext|g_dpgettext2|ngettext)\s*\(')
UI_MARK = re.compile(r'translatable="yes"')

ESCAPES = {'n': '\n', 't': '\t', 'r': '\r', '"': '"', '\\': '\\', 'a': '\a', 'b': '\b',
           'f': '\f', 'v': '\v'}


def unquote(text):
    """The value of one PO string literal, "..." with C escapes."""
    body = text.strip()[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c == '\\' and i + 1 < len(body):
            n = body[i + 1]
            if n in ESCAPES:
                out += ESCAPES[n].encode()
                i += 2
                continue
            m = re.match(r'[0-7]{1,3}', body[i + 1:])
            if m:
                out.append(int(m.group(0), 8))
                i += 1 + len(m.group(0))
                continue
        out += c.encode('utf-8')
        i += 1
    return out.decode('utf-8')


def messages(path):
    """The (context, msgid, msgid_plural) of every message of a PO file, without the header
    and the obsolete (#~) ones."""
    found = set()
    entry = {}
    field = None

    def flush():
        if entry.get('msgid'):
            found.add((entry.get('msgctxt'), entry['msgid'], entry.get('msgid_plural')))
        entry.clear()

    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            starts_entry = line == '' or line.startswith(('#', 'msgctxt ', 'msgid '))
            if starts_entry and any(k.startswith('msgstr') for k in entry):
                flush()
                field = None
            if line.startswith('#') or not line:
                continue
            elif line.startswith('"'):
                if field:
                    entry[field] += unquote(line)
            else:
                m = re.match(r'(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(".*")$', line)
                if m:
                    field = m.group(1)
                    entry[field] = unquote(m.group(2))
    flush()
    return found


def describe(message):
    context, msgid, plural = message
    text = msgid if len(msgid) <= 70 else msgid[:67] + '...'
    return ('[%s] ' % context if context else '') + repr(text) + (' (plural)' if plural else '')


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--source-root', required=True)
    parser.add_argument('--msgfmt', default='msgfmt')
    parser.add_argument('--xgettext', default='xgettext')
    parser.add_argument('xgettext_args', nargs='*')
    args = parser.parse_args()

    root = os.path.abspath(args.source_root)
    po_dir = os.path.join(root, 'po')
    problems = []

    with open(os.path.join(po_dir, 'LINGUAS'), encoding='utf-8') as f:
        languages = [w for line in f for w in line.split('#')[0].split()]
    with open(os.path.join(po_dir, 'POTFILES.in'), encoding='utf-8') as f:
        potfiles = [line.strip() for line in f if line.strip() and not line.startswith('#')]

    if not languages:
        problems.append('po/LINGUAS lists no language')

    # POTFILES.in against the tree: every listed file exists, every marking file is listed.
    for rel in potfiles:
        if not os.path.isfile(os.path.join(root, rel)):
            problems.append(f'po/POTFILES.in: {rel} does not exist')
    listed = set(potfiles)
    for top in ('src', 'data'):
        for dirpath, dirs, names in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(names):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                if name.endswith(('.c', '.h')):
                    mark = C_MARK
                elif name.endswith('.ui'):
                    mark = UI_MARK
                else:
                    continue
                with open(path, encoding='utf-8', errors='replace') as f:
                    if mark.search(f.read()) and rel not in listed:
                        problems.append(f'po/POTFILES.in: {rel} has translatable strings but is not listed')

    # The template as the sources are now.
    with tempfile.TemporaryDirectory() as tmp:
        pot = os.path.join(tmp, 'current.pot')
        files_from = os.path.join(tmp, 'POTFILES')
        with open(files_from, 'w', encoding='utf-8') as f:
            f.write(''.join(rel + '\n' for rel in potfiles if os.path.isfile(os.path.join(root, rel))))
        run = subprocess.run([args.xgettext, '--package-name=relayscope', '--directory', root,
                              '--files-from', files_from, '--output', pot] + GLIB_PRESET + args.xgettext_args,
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stderr, file=sys.stderr)
            problems.append('xgettext could not extract the strings of the sources')
            current = None
        else:
            current = messages(pot)

        for lang in languages:
            po = os.path.join(po_dir, lang + '.po')
            if not os.path.isfile(po):
                problems.append(f'po/{lang}.po is missing')
                continue
            run = subprocess.run([args.msgfmt, '--check', '--check-accelerators=_', '--statistics',
                                  '--output-file', os.path.join(tmp, lang + '.mo'), po],
                                 capture_output=True, text=True, env=dict(os.environ, LC_ALL='C', LANGUAGE=''))
            stats = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else ''
            print(f'{lang}: {stats}')
            if run.returncode != 0:
                print(run.stderr, file=sys.stderr)
                problems.append(f'po/{lang}.po does not pass msgfmt --check')
            for kind in ('fuzzy translation', 'untranslated message'):
                m = re.search(r'(\d+) ' + kind, stats)
                if m and int(m.group(1)) > 0:
                    problems.append(f'po/{lang}.po has {m.group(1)} {kind}(s)')

            if current is None:
                continue
            have = messages(po)
            for message in sorted(current - have, key=str):
                problems.append(f'po/{lang}.po lacks a string of the sources: {describe(message)}')
            for message in sorted(have - current, key=str):
                problems.append(f'po/{lang}.po has a string the sources no longer have: {describe(message)}')

    for problem in problems:
        print(problem)
    if problems:
        print(f'{len(problems)} translation problems. To bring a catalog up to date: '
              'meson compile -C BUILD relayscope-pot relayscope-update-po, then translate '
              'every new or fuzzy message.')
        return 1
    print(f'{len(languages)} catalog(s) complete and in step with {len(potfiles)} source files')
    return 0


if __name__ == '__main__':
    sys.exit(main())
