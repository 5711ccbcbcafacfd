"""What the CLI prints, for a terminal or a pipe: tables and text as a `Document`, rendered by
Rich for a terminal, as Markdown or CSV on request (`--format`), paged when long.

The rules, one place for every command:
- **Width.** On a terminal (its width, or `COLUMNS`) every line fits: text wraps at
  spaces (a token longer than the line — a URL, a path — is kept whole, never cut), and a
  table wraps its cells; when even its narrowest layout is too wide, the columns marked
  droppable go, the most droppable first, and one line under the table names them. Piped or
  redirected, nothing is wrapped or dropped: one row per line, for grep and cut.
- **Colour.** Emphasis (bold headers, green fits, red does not fit, yellow warnings) only on a
  terminal, never with `NO_COLOR` set or `TERM=dumb` (Rich reads both), never in a pipe.
- **Safety.** Every string is cleaned of control sequences (`assistant.sanitize.clean_text`)
  and handed to Rich as `Text`, never as markup: a model name holding `[bold]` or an escape
  sequence prints as written, harmless. Only Rich's own styling codes reach the terminal.
- **Paging.** Output taller than the terminal goes through `$GPU_SIZER_PAGER`, `$PAGER` or
  `less` (with `LESS=FRX` unless set, as git does: quits when it fits, keeps colours, leaves
  the text on screen); `--no-pager`, or `PAGER=cat`, turns it off.
- **Formats.** `table` (default) is the rendering above; `markdown` the same document as
  GitHub Markdown; `csv` the document's data table (`Document.data`) only; `json` is each
  command's own contract (`--json` is kept as its short form).
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, TextIO

from assistant.sanitize import CleanStream, clean_text

Format = Literal["table", "json", "csv", "markdown"]
FORMATS: tuple[Format, ...] = ("table", "json", "csv", "markdown")

Style = Literal["strong", "good", "bad", "warn", "dim", "heading"]
RICH_STYLES: dict[Style, str] = {
    "strong": "bold",
    "good": "bold green",
    "bad": "bold red",
    "warn": "yellow",
    "dim": "dim",
    "heading": "bold",
}
"""Semantic emphasis → Rich style (terminal only; Markdown keeps `strong` and `heading`)."""

PAGER_ENV = "GPU_SIZER_PAGER"


# --- the document ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Styled:
    """A cell or a lead with its emphasis."""

    text: str
    style: Style | None = None


Cell = str | Styled


@dataclass(frozen=True)
class Column:
    """One table column: its header (with the unit), right-aligned numbers, and how early it
    is dropped when the table cannot fit (0: never; the largest goes first)."""

    header: str
    numeric: bool = False
    drop: int = 0


@dataclass(frozen=True)
class Table:
    """Rows under columns; `title` is printed above it."""

    columns: Sequence[Column]
    rows: Sequence[Sequence[Cell]]
    title: str = ""

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"row has {len(row)} cells, table has {len(self.columns)}")


@dataclass(frozen=True)
class Line:
    """A paragraph: `lead` (emphasised, e.g. 'warning:') then `text`, wrapped to the width with
    continuation lines indented under the text; `indent` spaces before it, `bullet` before the
    first line ('-', '·')."""

    text: str
    lead: str = ""
    style: Style | None = None
    lead_style: Style | None = None
    indent: int = 0
    bullet: str = ""
    hang: int = 0
    """Extra indent of the continuation lines."""


@dataclass(frozen=True)
class Blank:
    """An empty line between parts."""


@dataclass(frozen=True)
class MarkdownText:
    """Markdown from elsewhere (an answer, a proposal): rendered on a terminal, raw otherwise."""

    source: str


Block = Table | Line | Blank | MarkdownText


@dataclass
class Document:
    """What a command prints, in order; `data` is the table `--format csv` writes."""

    blocks: list[Block] = field(default_factory=list)
    data: Table | None = None

    def add(self, *blocks: Block) -> Document:
        self.blocks.extend(blocks)
        return self

    def line(self, text: str, **kw: object) -> Document:
        self.blocks.append(Line(text, **kw))  # type: ignore[arg-type]
        return self


# --- where it goes -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Terminal:
    """What stdout is: a terminal (colour, paging) or not, and the width lines must fit
    (None: a pipe or a file — nothing wrapped)."""

    is_terminal: bool
    width: int | None
    height: int | None
    color: bool


def isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def raw_stream(stream: TextIO) -> TextIO:
    """The stream under the dispatcher's cleaning wrapper (Rich's styling must pass)."""
    return stream.stream if isinstance(stream, CleanStream) else stream


def color_allowed(is_terminal: bool, environ: dict[str, str] | None = None) -> bool:
    """Colour on a terminal only, never with NO_COLOR (any value, no-color.org) or TERM=dumb."""
    env = os.environ if environ is None else environ
    return is_terminal and "NO_COLOR" not in env and env.get("TERM") != "dumb"


def terminal(stream: TextIO | None = None) -> Terminal:
    """stdout (or `stream`) as it is now."""
    out = sys.stdout if stream is None else stream
    tty = isatty(out)
    if not tty:
        return Terminal(False, None, None, False)  # a pipe or a file: nothing wrapped
    size = shutil.get_terminal_size()  # COLUMNS / LINES first, then the terminal's own
    return Terminal(True, max(20, size.columns), max(5, size.lines), color_allowed(True))


# --- rendering ---------------------------------------------------------------------------------

_UNLIMITED = 100_000
"""Rich needs a width: a pipe's, where nothing may wrap."""


def _console(term: Terminal, width: int | None = None) -> object:
    from rich.console import Console

    return Console(
        file=io.StringIO(),
        width=width or term.width or _UNLIMITED,
        color_system="auto" if term.color else None,
        force_terminal=term.color,
        no_color=not term.color,
        markup=False,
        emoji=False,
        highlight=False,
        soft_wrap=False,
        legacy_windows=False,
        _environ={"TERM": os.environ.get("TERM", "xterm-256color")} if term.color else {},
    )


def _cell_text(cell: Cell) -> Styled:
    if isinstance(cell, Styled):
        return Styled(clean_text(cell.text), cell.style)
    return Styled(clean_text(cell))


def wrap_line(line: Line, width: int | None) -> list[tuple[str, int]]:
    """`line` as printed lines, each with the length of its emphasised lead (first line only).
    Words longer than the room are kept whole (a URL must stay copyable)."""
    lead = clean_text(line.lead)
    text = clean_text(line.text)
    prefix = " " * line.indent + (f"{line.bullet} " if line.bullet else "")
    body = f"{lead} {text}".strip() if lead else text
    hang = " " * (len(prefix) + line.hang)
    out: list[tuple[str, int]] = []
    for index, paragraph in enumerate(body.split("\n") or [""]):
        first = prefix if index == 0 else hang
        if width is None:
            out.append((first + paragraph, len(first) + len(lead) if index == 0 and lead else 0))
            continue
        wrapped = textwrap.wrap(
            paragraph,
            width=max(width, len(first) + 1),
            initial_indent=first,
            subsequent_indent=hang,
            break_long_words=False,
            break_on_hyphens=False,
        ) or [first.rstrip()]
        for n, text_line in enumerate(wrapped):
            lead_len = len(first) + len(lead) if index == 0 and n == 0 and lead else 0
            out.append((text_line, lead_len))
    return out


COLUMN_GAP = 2
"""Spaces between two columns."""


def _rich_table(
    table: Table, shown: Sequence[int], term: Terminal, widths: Sequence[int] | None = None
) -> object:
    from rich import box
    from rich.table import Table as RichTable
    from rich.text import Text

    rich = RichTable(
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        header_style="bold" if term.color else "",
        padding=(0, COLUMN_GAP - 1, 0, 0),
    )
    for n, index in enumerate(shown):
        column = table.columns[index]
        rich.add_column(
            Text(clean_text(column.header)),
            justify="right" if column.numeric else "left",
            # Headers and text cells wrap at spaces; ids and numbers hold none, so the widths
            # below (never under a cell's longest word) keep them whole.
            overflow="fold",
            width=None if widths is None else widths[n],
        )
    for row in table.rows:
        cells = []
        for index in shown:
            cell = _cell_text(row[index])
            style = RICH_STYLES[cell.style] if cell.style and term.color else ""
            cells.append(Text(cell.text, style=style))
        rich.add_row(*cells)
    return rich


SHORT_CELL = 14
"""A cell up to this many cells wide is never wrapped ('79 days old', 'misses targets'):
dropping a column reads better than a row three lines tall. Headers always wrap."""


def _word_widths(table: Table, index: int) -> tuple[int, int]:
    """(narrowest, natural) width of one column in terminal cells: the narrowest keeps every
    header word and every short cell whole (longer cells wrap at their spaces)."""
    from rich.cells import cell_len

    def longest_word(text: str) -> int:
        return max((cell_len(w) for w in text.split()), default=1)

    def whole(text: str) -> int:
        return max((cell_len(part) for part in text.split("\n")), default=0)

    cells = [_cell_text(r[index]).text for r in table.rows]
    header = table.columns[index].header
    least = [longest_word(header)]
    least += [whole(c) if whole(c) <= SHORT_CELL else longest_word(c) for c in cells]
    natural = [whole(header), *(whole(c) for c in cells)]
    return max(least), max(max(natural), 1)


def column_widths(table: Table, shown: Sequence[int], width: int | None) -> list[int] | None:
    """Widths that fit `width`: every column at least its longest word, the room left shared
    in proportion to what each would still use; None when even the narrowest layout is too
    wide. With no width (a pipe) every column is as wide as its longest cell."""
    measured = [_word_widths(table, i) for i in shown]
    natural = [longest for _, longest in measured]
    if width is None:
        return natural
    room = width - COLUMN_GAP * (len(shown) - 1)
    least = [word for word, _ in measured]
    if sum(least) > room:
        return None
    if sum(natural) <= room:
        return natural
    spare = room - sum(least)
    slack = [n - w for w, n in zip(least, natural, strict=True)]
    widths = list(least)
    # The columns that need least to be whole are made whole first (a short age or a label
    # never wraps to save a few cells), then the rest share what is left by what each needs.
    rest: list[int] = []
    for n in sorted(range(len(widths)), key=lambda i: slack[i]):
        if slack[n] <= spare and not rest:
            widths[n] = natural[n]
            spare -= slack[n]
        else:
            rest.append(n)
    total = sum(slack[n] for n in rest)
    for n in rest:
        widths[n] += (spare * slack[n]) // total if total else 0
    leftover = room - sum(widths)
    for n in rest:
        if leftover <= 0:
            break
        if widths[n] < natural[n]:
            widths[n] += 1
            leftover -= 1
    return widths


def fitted_columns(table: Table, term: Terminal) -> tuple[list[int], list[int] | None, list[str]]:
    """The columns shown at the terminal's width, their widths, and the headers of those
    dropped (the most droppable first, until the narrowest layout fits; never a column marked
    0 — a table of those alone may still be too wide, its widest words folded)."""
    shown = list(range(len(table.columns)))
    dropped: list[str] = []
    order = sorted(
        (i for i, c in enumerate(table.columns) if c.drop > 0),
        key=lambda i: (-table.columns[i].drop, -i),
    )
    widths = column_widths(table, shown, term.width)
    while widths is None and order:
        index = order.pop(0)
        shown.remove(index)
        dropped.append(table.columns[index].header)
        widths = column_widths(table, shown, term.width)
    return shown, widths, dropped


_TRAILING = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)$")


def _strip_trailing(text: str) -> str:
    return "\n".join(_TRAILING.sub(r"\1", line) for line in text.split("\n"))


def render_terminal(doc: Document, term: Terminal) -> str:
    """The document as a terminal (or a plain pipe) shows it (see the module docstring)."""
    from rich.console import Console
    from rich.text import Text

    console = _console(term)
    assert isinstance(console, Console)
    with console.capture() as captured:
        for block in doc.blocks:
            if isinstance(block, Blank):
                console.print()
            elif isinstance(block, Line):
                for text_line, lead_len in wrap_line(block, term.width):
                    text = Text(text_line, no_wrap=True, overflow="ignore")
                    if term.color and block.style:
                        text.stylize(RICH_STYLES[block.style])
                    if term.color and block.lead_style and lead_len:
                        text.stylize(RICH_STYLES[block.lead_style], 0, lead_len)
                    console.print(text, crop=False, soft_wrap=True)
            elif isinstance(block, MarkdownText):
                source = clean_text(block.source)
                if term.is_terminal or term.color:
                    # Lazy: Rich's Markdown and markdown-it cost ~50 ms, a pipe never needs them.
                    from assistant.render.terminal_markdown import TerminalMarkdown

                    console.print(TerminalMarkdown(source))
                else:
                    console.out(source, end="", highlight=False)  # raw: exactly as written
            else:
                _print_table(console, block, term)
    return _strip_trailing(captured.get())


def _print_table(console: object, table: Table, term: Terminal) -> None:
    from rich.console import Console
    from rich.text import Text

    assert isinstance(console, Console)
    if table.title:
        title = Text(clean_text(table.title), style="bold" if term.color else "")
        console.print(title, crop=False, soft_wrap=term.width is None)
    shown, widths, dropped = fitted_columns(table, term)
    console.print(_rich_table(table, shown, term, widths))
    if dropped:
        note = Line(
            f"{', '.join(dropped)} (a wider terminal or --format csv, markdown or json shows them)",
            lead=f"Not shown at {term.width} columns:",
            style="dim",
        )
        for text_line, _ in wrap_line(note, term.width):
            console.print(Text(text_line, style="dim" if term.color else ""), crop=False)


def plain_text(doc: Document) -> str:
    """The document as plain text at its natural width: no colour, nothing wrapped (for a
    preformatted block elsewhere, e.g. the chat's /gpus)."""
    return render_terminal(doc, Terminal(False, None, None, False))


def _md_cell(cell: Cell) -> str:
    styled = _cell_text(cell)
    text = styled.text.replace("|", "\\|").replace("\n", " ")
    return f"**{text}**" if styled.style in ("strong", "good", "bad") and text else text


def markdown_table(table: Table) -> list[str]:
    """A table as GitHub Markdown (every column; numbers right-aligned)."""
    header = "| " + " | ".join(_md_cell(c.header) for c in table.columns) + " |"
    rule = "|" + "|".join("---:" if c.numeric else "---" for c in table.columns) + "|"
    body = ["| " + " | ".join(_md_cell(cell) for cell in row) + " |" for row in table.rows]
    return [header, rule, *body]


def render_markdown(doc: Document) -> str:
    """The document as GitHub Markdown: paragraphs, bullet lists, tables (every column)."""
    out: list[str] = []

    def gap() -> None:
        if out and out[-1] != "":
            out.append("")

    previous: Block | None = None
    for block in doc.blocks:
        if isinstance(block, Blank):
            gap()
        elif isinstance(block, Line):
            lead = clean_text(block.lead)
            text = clean_text(block.text).replace("\n", " ")
            body = f"**{lead}** {text}" if lead else text
            if block.style in ("strong", "good", "bad", "heading") and not lead:
                body = f"**{text}**"
            if block.bullet or block.indent:
                if not (isinstance(previous, Line) and (previous.bullet or previous.indent)):
                    gap()
                nest = "  " if block.indent >= 4 else ""
                out.append(f"{nest}- {body}")
            else:
                gap()
                out.append(body)
        elif isinstance(block, MarkdownText):
            gap()
            out.append(clean_text(block.source).rstrip("\n"))
        else:
            gap()
            if block.title:
                out += [f"**{clean_text(block.title)}**", ""]
            out += markdown_table(block)
        previous = block
    return "\n".join(out).strip("\n") + "\n"


def render_csv(table: Table) -> str:
    """A table as CSV (RFC 4180 quoting, a header row, every column, text only)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([clean_text(c.header) for c in table.columns])
    writer.writerows([_cell_text(cell).text for cell in row] for row in table.rows)
    return buffer.getvalue()


# --- options and printing ----------------------------------------------------------------------


def add_format_options(parser: argparse.ArgumentParser, json_help: str) -> None:
    """`--format table|json|csv|markdown`, `--json` (= --format json) and `--no-pager`."""
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="table (default: aligned to the terminal), json, csv (the table only) or markdown",
    )
    parser.add_argument("--json", action="store_true", help=f"{json_help} (= --format json)")
    add_pager_option(parser)


def add_pager_option(parser: argparse.ArgumentParser) -> None:
    """`--no-pager`: never page (also PAGER=cat)."""
    parser.add_argument(
        "--no-pager",
        action="store_true",
        help=f"never page long output (default: ${PAGER_ENV}, $PAGER or less, on a terminal)",
    )


def output_format(args: argparse.Namespace) -> Format:
    """The format asked: --json wins (it is --format json), else --format, else table."""
    if getattr(args, "json", False):
        return "json"
    chosen: Format | None = getattr(args, "format", None)
    return chosen or "table"


def pager_command(environ: dict[str, str] | None = None) -> list[str] | None:
    """The pager to use: $GPU_SIZER_PAGER, $PAGER, else less; None for `cat` or none found."""
    env = os.environ if environ is None else environ
    chosen = env.get(PAGER_ENV) or env.get("PAGER")
    if chosen is None:
        chosen = "less" if shutil.which("less") else ""
    try:
        argv = shlex.split(chosen)
    except ValueError:
        return None
    if not argv or argv == ["cat"]:
        return None
    return argv


def _page(text: str, argv: list[str]) -> bool:
    """Show `text` in the pager; False when it could not be started (then it is printed)."""
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, env=env, text=True)
    except OSError:
        return False
    assert proc.stdin is not None
    try:
        proc.stdin.write(text)
        proc.stdin.close()
    except (BrokenPipeError, OSError):
        pass  # the reader quit the pager before the end: nothing more to show
    while True:
        try:
            proc.wait()
            return True
        except KeyboardInterrupt:
            continue  # Ctrl+C belongs to the pager (less keeps running), as git does


def write_out(text: str, term: Terminal | None = None, page: bool = True) -> None:
    """Print rendered `text`: through the pager when it is taller than the terminal, with the
    terminal's colours when on (see the module docstring)."""
    term = terminal() if term is None else term
    if page and term.is_terminal and term.height is not None:
        argv = pager_command()
        if argv is not None and text.count("\n") >= term.height - 1:
            sys.stdout.flush()
            if _page(text, argv):
                return
    stream = raw_stream(sys.stdout) if term.color else sys.stdout
    stream.write(text)
    stream.flush()


def emit(doc: Document, args: argparse.Namespace | None = None, fmt: Format | None = None) -> None:
    """Print `doc` in the format asked (table, markdown or csv; json is the command's own)."""
    chosen = fmt or (output_format(args) if args is not None else "table")
    page = not getattr(args, "no_pager", False)
    term = terminal()
    if chosen == "markdown":
        write_out(render_markdown(doc), _plain(term), page)
    elif chosen == "csv":
        if doc.data is None:
            raise ValueError("this output has no data table for --format csv")
        write_out(render_csv(doc.data), _plain(term), page=False)
    else:
        write_out(render_terminal(doc, term), term, page)


def _plain(term: Terminal) -> Terminal:
    """A terminal that shows text as written (no colour): Markdown and CSV are data."""
    return Terminal(term.is_terminal, term.width, term.height, color=False)


def markdown_doc(source: str) -> Document:
    """A document of one Markdown text."""
    return Document([MarkdownText(source)])


def text_lines(text: str, style: Style | None = None) -> list[Block]:
    """Plain text as lines, each keeping its own indent (continuation lines two further)."""
    out: list[Block] = []
    for raw in text.splitlines():
        body = raw.lstrip(" ")
        indent = len(raw) - len(body)
        out.append(Line(body, indent=indent, hang=2, style=style) if body else Blank())
    return out


def lines(texts: Iterable[str], **kw: object) -> list[Block]:
    """One `Line` per text, with the same options."""
    return [Line(t, **kw) for t in texts]  # type: ignore[arg-type]
