"""Loading `.witness.yml` as YAML with the line of every key, so each problem can name file:line:key."""

from __future__ import annotations

import yaml


class YamlProblem(ValueError):
    """The text is not a YAML mapping; `line` is where (1 when unknown)."""

    def __init__(self, problems: list[str], line: int = 1) -> None:
        self.problems = problems
        self.line = line
        super().__init__("\n".join(problems))


class _NoAliases(yaml.SafeLoader):
    """An alias (*name) is refused where it is met: a few lines of nested aliases stand for gigabytes once a
    value is printed in a problem, and a `.witness.yml` never needs one."""

    def compose_node(self, parent, index):  # type: ignore[no-untyped-def]
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(None, None, "an alias (*name) is not allowed here; write the value "
                                              "out in full", mark)
        return super().compose_node(parent, index)


def load_with_lines(text: str | bytes, source: str) -> tuple[dict, dict[str, int]]:
    """Load YAML keeping the line of every key (as "section.key")."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise YamlProblem([f"{source}: not UTF-8 text (byte {exc.start}); save it as UTF-8"]) from None
    try:
        loader = _NoAliases(text)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        raise YamlProblem([f"{source}:{line}: not valid YAML ({exc.problem or exc.context})"], line) from None
    except yaml.YAMLError as exc:
        raise YamlProblem([f"{source}: not valid YAML ({exc})"]) from None
    if node is None:
        return {}, {}
    if not isinstance(node, yaml.MappingNode):
        raise YamlProblem([f"{source}:{node.start_mark.line + 1}: expected a mapping at the top"],
                          node.start_mark.line + 1)
    lines: dict[str, int] = {}
    problems: list[str] = []
    duplicate_lines: list[int] = []
    constructor = yaml.SafeLoader("")

    def mapping(n: yaml.MappingNode, prefix: str) -> dict:
        out: dict = {}
        for key_node, value_node in n.value:
            key = str(constructor.construct_object(key_node, deep=True))
            dotted = f"{prefix}{key}"
            if key in out:
                problems.append(f"{source}:{key_node.start_mark.line + 1}: {dotted}: duplicate key")
                duplicate_lines.append(key_node.start_mark.line + 1)
            lines[dotted] = key_node.start_mark.line + 1
            if isinstance(value_node, yaml.MappingNode) and not prefix:
                out[key] = mapping(value_node, dotted + ".")
            else:
                out[key] = constructor.construct_object(value_node, deep=True)
        return out

    try:
        values = mapping(node, "")
    except yaml.YAMLError as exc:
        raise YamlProblem([f"{source}: not valid YAML ({exc})"]) from None
    if problems:
        raise YamlProblem(problems, duplicate_lines[0])
    return values, lines
