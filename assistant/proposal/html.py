"""The proposal as one self-contained HTML file: inline CSS with a print stylesheet, no scripts,
no external assets (fonts, images, links to stylesheets). Every text is escaped with
`html.escape`, so a quoted tool string can never inject markup.

Printed (or saved as PDF), page one is the decision alone: each `PageBreak` starts a new page;
tables repeat their header row on every page and rows are never split. On screen a page break
is a rule.
"""

from __future__ import annotations

from html import escape

from assistant.proposal.document import (
    Block,
    BulletList,
    Document,
    Heading,
    Item,
    PageBreak,
    Paragraph,
    Table,
)

STYLE = """
:root { color-scheme: light; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1f24;
       max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; border-bottom: 2px solid #1b1f24; padding-bottom: .3rem; }
h2 { font-size: 1.2rem; margin: 1.4rem 0 .4rem; border-bottom: 1px solid #c8ccd1; }
h3 { font-size: 1.05rem; margin-top: 1.2rem; }
p, ul { margin: .4rem 0; }
table { border-collapse: collapse; margin: .6rem 0; font-size: .85rem; width: 100%; }
th, td { border: 1px solid #c8ccd1; padding: .25rem .45rem; vertical-align: top;
         text-align: left; overflow-wrap: anywhere; }
li { overflow-wrap: anywhere; }
th { background: #eef1f4; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
blockquote { border-left: 4px solid #b7791f; background: #fff8e6; margin: .8rem 0;
             padding: .4rem .8rem; }
hr.page-break { border: 0; border-top: 3px double #8a9099; margin: 2.5rem 0; }
@media print {
  @page { size: A4; margin: 16mm 14mm; }
  body { max-width: none; margin: 0; padding: 0; font-size: 10pt; color: #000; }
  hr.page-break { border: 0; margin: 0; break-after: page; page-break-after: always; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
  table, blockquote { break-inside: auto; }
  tr, li { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  th { background: #eee !important; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
""".strip()


def _led(text: str, lead: str) -> str:
    body = escape(text)
    return f"<strong>{escape(lead)}</strong> {body}".rstrip() if lead else body


def _item(item: str | Item) -> str:
    text = escape(item) if isinstance(item, str) else _led(item.text, item.lead)
    return f"<li>{text}</li>"


def _block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"<h{block.level}>{escape(block.text)}</h{block.level}>"
    if isinstance(block, Paragraph):
        text = f"<p>{_led(block.text, block.lead)}</p>"
        return f"<blockquote>{text}</blockquote>" if block.note else text
    if isinstance(block, BulletList):
        return "<ul>" + "".join(_item(item) for item in block.items) + "</ul>"
    if isinstance(block, PageBreak):
        return '<hr class="page-break">'
    return _table(block)


def _table(table: Table) -> str:
    def cls(i: int) -> str:
        return ' class="num"' if i in table.numeric else ""

    head = "".join(f"<th{cls(i)}>{escape(h)}</th>" for i, h in enumerate(table.headers))
    body = "\n".join(
        "<tr>" + "".join(f"<td{cls(i)}>{escape(c)}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in table.rows
    )
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def render_html(document: Document) -> str:
    """The whole document as a standalone HTML5 page (UTF-8, inline styles, printable)."""
    body = "\n".join(_block(b) for b in document.blocks)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(document.title)}</title>\n<style>\n{STYLE}\n</style>\n</head>\n"
        f"<body>\n<h1>{escape(document.title)}</h1>\n{body}\n</body>\n</html>\n"
    )
