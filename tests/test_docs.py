"""The documentation: the README and docs/ must not point anywhere that is not there.

mkdocs checks the pages of docs/ (links, anchors, every page in the nav);
the README is not part of that site, so its links are checked here as GitHub
resolves them: relative paths from the repository's root, and anchors made
from headings by GitHub's rule.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")

LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*```")


def prose_lines(text: str) -> list[str]:
    """The lines of a Markdown text outside fenced code, inline code removed."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append(re.sub(r"`[^`]*`", "", line))
    return out


def github_anchors(text: str) -> set[str]:
    """The anchors GitHub gives a Markdown file's headings: the heading's text,
    lowercased, without punctuation, spaces made hyphens; repeats get -1, -2..."""
    seen: Counter = Counter()
    anchors = set()
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))  # a link's text only
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        anchors.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
        seen[slug] += 1
    return anchors


def relative_links(path: str) -> list[tuple[str, str]]:
    """(target path, anchor) for each link of a Markdown file that stays in the repository."""
    with open(path, encoding="utf-8") as f:
        lines = prose_lines(f.read())
    links = []
    for line in lines:
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target):  # https:, mailto: ...
                continue
            file_part, _, anchor = target.partition("#")
            resolved = path if not file_part else os.path.normpath(os.path.join(os.path.dirname(path), file_part))
            links.append((resolved, anchor))
    return links


def broken_links(path: str) -> list[str]:
    problems = []
    for target, anchor in relative_links(path):
        if not os.path.exists(target):
            problems.append(f"{os.path.relpath(target, ROOT)} does not exist")
        elif anchor and target.endswith(".md"):
            with open(target, encoding="utf-8") as f:
                if anchor not in github_anchors(f.read()):
                    problems.append(f"{os.path.relpath(target, ROOT)} has no heading for #{anchor}")
    return problems


def markdown_files() -> list[str]:
    return [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(DOCS, name) for name in os.listdir(DOCS) if name.endswith(".md"))


def test_github_anchors_follow_githubs_rule():
    text = "# Liveness: does the protocol make progress?\n## Simulation: `modelcheck simulate`\n" \
           "```\n# not a heading\n```\n## Figures\n## Figures\n## KIP-320 on the consumer side\n"
    assert github_anchors(text) == {"liveness-does-the-protocol-make-progress", "simulation-modelcheck-simulate",
                                    "figures", "figures-1", "kip-320-on-the-consumer-side"}


def test_a_broken_link_is_found(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n## A part\n")
    page.write_text("[ok](other.md#a-part) [bad](other.md#b-part) [gone](missing.md) `[code](x.md)`\n")
    relative = os.path.relpath(tmp_path, ROOT)
    assert broken_links(str(page)) == [f"{relative}/other.md has no heading for #b-part",
                                       f"{relative}/missing.md does not exist"]


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: os.path.relpath(p, ROOT))
def test_links_resolve_as_on_github(path):
    assert broken_links(path) == []


def test_the_readme_links_every_page_of_the_docs():
    linked = {target for target, _ in relative_links(os.path.join(ROOT, "README.md"))}
    pages = {p for p in markdown_files()[1:] if os.path.basename(p) != "index.md"}
    assert pages - linked == set()


def mkdocs_build(config_file: str, site_dir: str) -> tuple[int, list[str]]:
    """Build a site with ``mkdocs build --strict``: its exit code, and the
    warnings it printed (strict mode fails on them; ``--quiet`` would hide
    them, and with them the failure)."""
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", config_file,
                           "--site-dir", site_dir], cwd=os.path.dirname(config_file), capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    output = done.stdout + done.stderr
    return done.returncode, [line for line in output.splitlines() if "WARNING" in line]


def test_a_broken_anchor_fails_the_strict_build(tmp_path):
    """The check below sees what mkdocs warns about: a link to an anchor
    written by GitHub's rule (``--`` kept) where mkdocs' rule makes ``-``."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[there](#past---max-memory)\n\n## Past --max-memory\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nnav:\n  - Home: index.md\nvalidation:\n  anchors: warn\n")
    code, warnings = mkdocs_build(str(tmp_path / "mkdocs.yml"), str(tmp_path / "site"))
    assert code != 0 and any("past---max-memory" in w for w in warnings)


def mkdocs_anchors(text: str) -> set[str]:
    """The anchors mkdocs' toc extension gives a page's headings (runs of
    hyphens and spaces made one hyphen, unlike GitHub's rule)."""
    from markdown.extensions.toc import slugify
    anchors, fenced = set(), False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1)).replace("`", "")
            anchors.add(slugify(heading, "-"))
    return anchors


@pytest.mark.parametrize("path", markdown_files()[1:], ids=lambda p: os.path.relpath(p, ROOT))
def test_anchors_of_the_docs_resolve_on_github_and_in_the_site_alike(path):
    """docs/ is read on GitHub and as the mkdocs site: an anchor must be the
    same under both rules."""
    problems = []
    for target, anchor in relative_links(path):
        if anchor and target.endswith(".md") and os.path.exists(target):
            with open(target, encoding="utf-8") as f:
                if anchor not in mkdocs_anchors(f.read()):
                    problems.append(f"{os.path.relpath(target, ROOT)}#{anchor} is not an anchor in the mkdocs site")
    assert problems == []


def test_mkdocs_builds_the_site_strictly(tmp_path):
    """Every page in the nav, every link and anchor resolving, or the build fails."""
    code, warnings = mkdocs_build(os.path.join(ROOT, "mkdocs.yml"), str(tmp_path / "site"))
    assert (code, warnings) == (0, [])
    assert (tmp_path / "site" / "running" / "index.html").exists()


def documented_commands():
    import doc_commands
    return [(p, n, c) for p, n, c, _ in doc_commands.commands()] + doc_commands.inline_commands()


@pytest.mark.parametrize("page, line, command", documented_commands())
def test_every_documented_command_is_one_modelcheck_accepts(page, line, command):
    """Each `modelcheck ...` command the README and docs show (in a code
    block, or whole in the prose) parses: its command and options exist,
    the spec a code block names is a built-in one or a spec file's path,
    and a --config it names is `default` or a file of the clone. (`python tests/doc_commands.py` runs those of the code blocks.)"""
    import shlex
    import click
    import doc_commands
    from cli import main
    from modelcheck.specs import all_specs
    fenced = {(p, n, c) for p, n, c, _ in doc_commands.commands()}
    if command.startswith("python3 "):
        return  # a line that makes a command's input: run by tests/doc_commands.py
    args = shlex.split(command)[1:]
    with main.make_context("modelcheck", list(args), resilient_parsing=False) as ctx:
        name, sub, rest = main.resolve_command(ctx, list(args))
        try:
            sub.make_context(name, list(rest), parent=ctx)
        except click.exceptions.Exit:
            pass
    spec = rest[0] if name in ("run", "sweep", "simulate", "prove", "graph", "replay") else None
    if spec is not None and not spec.endswith(".py") and "/" not in spec and (page, line, command) in fenced:
        assert spec in all_specs(), f"{page}:{line}: unknown spec {spec}"  # (the prose may name an installed one)
    if "--config" in rest:
        config = rest[rest.index("--config") + 1]
        assert config == "default" or os.path.exists(os.path.join(ROOT, config)), f"{page}:{line}: {config}"
