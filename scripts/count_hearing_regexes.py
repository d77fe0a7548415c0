"""Print how many regex alternatives the hearing uses: the unescaped `|` inside raw-string
literals of procurement/chat/*.py (the quote-sheet answers live there too, in sheet_answers.py).

    python scripts/count_hearing_regexes.py [root]"""
import io
import sys
import tokenize
from pathlib import Path


def alternatives(literal: str) -> int:
    """The unescaped `|` in one string literal's source text."""
    count, escaped = 0, False
    for char in literal:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "|":
            count += 1
    return count


def count(root: Path) -> dict[str, int]:
    figures = {}
    for path in sorted((root / "procurement" / "chat").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        figures[str(path.relative_to(root))] = sum(alternatives(lit) for lit in _raw_texts(source))
    return figures


def _raw_texts(source: str):
    """The text of each raw string literal, f-strings included (their literal parts)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    raw_depth = []
    for token in tokens:
        if token.type == tokenize.STRING:
            body = token.string.lstrip("rRbBuUfF")
            if "r" in token.string[:len(token.string) - len(body)].lower():
                yield body
        elif fstring_start is not None and token.type == fstring_start:
            raw_depth.append("r" in token.string.lower())
        elif fstring_start is not None and token.type == tokenize.FSTRING_MIDDLE:
            if raw_depth and raw_depth[-1]:
                yield token.string
        elif fstring_start is not None and token.type == tokenize.FSTRING_END:
            raw_depth.pop()


if __name__ == "__main__":
    figures = count(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    for name, n in figures.items():
        print(f"{n:6d}  {name}")
    print(f"{sum(figures.values()):6d}  total")
