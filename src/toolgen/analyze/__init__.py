"""Analysis: from a handler's source to the pieces of a descriptor.

- `handlers`: find marked handlers in a module's tree.
- `signature`: the parameters a model may pass.
- `types`: type annotations to JSON Schema, following pydantic v2's run-time schemas.
- `literals`: literal values (defaults, decorator and Field arguments) read without running code.
- `docstrings`: Google, NumPy and Sphinx docstrings, and toolgen's own sections.
- `decorators`: the marker's literal keyword arguments.
"""
