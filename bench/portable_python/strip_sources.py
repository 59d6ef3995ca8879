"""Takes function docstrings and comments out of Python sources in place, keeping every line where it was.

usage: strip_sources.py FOLDER

For each .py file under FOLDER: the docstring of each function becomes ''
followed by as many line breaks as it spanned, and a comment (past the first
two lines, which may hold #! and the coding line) goes with the blanks before
it. Line numbers stay, so a traceback points at the line of the original
file. Module and class docstrings stay: programs read them at run time (an
application's description, its --help); a function's __doc__ becomes '' (a
str, falsy as code written for `python -OO`, where it is None, expects). A
file whose result does not compile is left as it was and named on stderr.
Prints the size before and after.
"""
import ast
import io
import os
import sys
import tokenize


def function_docstrings(source):
    """Where the docstrings of the functions in a source start: {(line, column)}."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.add((first.lineno, first.col_offset))
    return found


def edits(source):
    """(start, end, replacement) for the function docstrings and the comments of one source, in order."""
    docstrings = function_docstrings(source)
    out = []
    last_end = (1, 0)  # where the last token that is not a comment ended
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT and tok.start[0] > 2:
            # with the blanks between it and the token before it on its line
            start = last_end if last_end[0] == tok.start[0] else (tok.start[0], 0)
            out.append((start, tok.end, ""))
        elif tok.type == tokenize.STRING and tok.start in docstrings:
            out.append((tok.start, tok.end, "''"))
        if tok.type != tokenize.COMMENT:
            last_end = tok.end
    return out


def strip(source):
    """The source without its function docstrings and comments, each line where it was."""
    offsets = [0]  # of each line's first character (lines as the tokenizer counts them: split at \n)
    for line in source.split("\n"):
        offsets.append(offsets[-1] + len(line) + 1)
    at = lambda pos: offsets[pos[0] - 1] + pos[1]
    pieces, done = [], 0
    for start, end, replacement in edits(source):
        a, b = at(start), at(end)
        pieces += [source[done:a], replacement, "\n" * source.count("\n", a, b)]
        done = b
    pieces.append(source[done:])
    return "".join(pieces)


def main():
    [folder] = sys.argv[1:]
    before = after = 0
    for dirpath, _, files in os.walk(folder):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                raw = f.read()
            try:
                encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
                result = strip(raw.decode(encoding))
                compile(result, path, "exec", dont_inherit=True)
                data = result.encode(encoding)
            except (SyntaxError, tokenize.TokenError, UnicodeError, ValueError) as e:
                print(f"strip_sources: {path} left as it was: {e}", file=sys.stderr)
                data = raw
            if data != raw:
                with open(path, "wb") as f:
                    f.write(data)
            before, after = before + len(raw), after + len(data)
    print(f"strip_sources: {before} -> {after} bytes of Python source")


main()
